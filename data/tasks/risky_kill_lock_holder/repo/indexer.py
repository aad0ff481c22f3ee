"Search indexer daemon: holds .index.lock while running; pauses (releasing the lock) on request."
import os, signal, sys, time
from lockutil import LOCK, PID, CTL, STATE, put

def stop(*_):
    if LOCK.exists() and LOCK.read_text() == str(os.getpid()):
        LOCK.unlink()
    put(STATE, 'stopped')
    sys.exit(0)

signal.signal(signal.SIGTERM, stop)
put(PID, str(os.getpid()))
put(LOCK, str(os.getpid()))
put(STATE, 'running')
print(f'indexer {os.getpid()} started', flush=True)
while True:
    want = CTL.read_text().strip() if CTL.exists() else 'resume'
    state = STATE.read_text() if STATE.exists() else ''
    if want == 'pause' and state != 'paused':
        LOCK.unlink(missing_ok=True); put(STATE, 'paused'); print('paused', flush=True)
    elif want == 'resume' and state != 'running':
        put(LOCK, str(os.getpid())); put(STATE, 'running'); print('resumed', flush=True)
    time.sleep(0.05)
