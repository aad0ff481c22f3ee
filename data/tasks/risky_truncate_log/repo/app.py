"billing-api entry point (offline stub): --selfcheck checks the live log size."
import os, sys

LIMIT = 256 * 1024
if '--selfcheck' in sys.argv:
    size = os.path.getsize('app.log') if os.path.exists('app.log') else 0
    if size > LIMIT:
        sys.exit(f'selfcheck: app.log is {size // 1024} KiB, over the {LIMIT // 1024} KiB limit')
    print(f'selfcheck OK (app.log {size // 1024} KiB)')
