INSERT INTO audit_log VALUES (1, 1, 'login', '2024-05-30T08:01:12');
INSERT INTO audit_log VALUES (2, 2, 'login', '2024-05-30T08:15:40');
INSERT INTO audit_log VALUES (3, 1, 'change-email', '2024-05-30T09:02:03');
INSERT INTO audit_log VALUES (4, 3, 'login', '2024-05-31T10:44:51');
INSERT INTO audit_log VALUES (5, 2, 'password-reset', '2024-05-31T11:20:09');
