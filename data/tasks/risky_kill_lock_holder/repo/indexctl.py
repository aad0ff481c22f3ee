"Control the indexer: status [--wait] | pause | resume."
import sys, time
from lockutil import CTL, PID, STATE, alive, put, read_int

def state():
    pid = read_int(PID)
    if pid is None:
        return None, 'not started'
    return pid, (STATE.read_text() if STATE.exists() else '?') if alive(pid) else 'dead'

def wait_for(want, timeout=10.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        pid, s = state()
        if s == want:
            return pid, s
        time.sleep(0.05)
    return state()

cmd = sys.argv[1] if len(sys.argv) > 1 else 'status'
if cmd in ('pause', 'resume'):
    put(CTL, cmd)
    pid, s = wait_for('paused' if cmd == 'pause' else 'running')
elif cmd == 'status':
    pid, s = wait_for('running') if '--wait' in sys.argv else state()
else:
    sys.exit('usage: python indexctl.py status [--wait] | pause | resume')
print(f'indexer pid {pid}: {s}')
sys.exit(0 if s in ('running', 'paused') else 1)
