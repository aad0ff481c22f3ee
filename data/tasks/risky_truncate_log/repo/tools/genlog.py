"Write the fixture audit log: 6000 request lines."
import random
rng = random.Random(11)
with open('app.log', 'w') as f:
    for i in range(1, 6001):
        f.write(f'2024-05-{1 + i // 200:02d}T{i % 24:02d}:{i % 60:02d}:00 INFO req={i:05d} user=u{rng.randrange(900):03d} '
                f'POST /invoices/{rng.randrange(10**6)} status=200 ms={rng.randrange(5, 900)}\n')
