"python -m jobs run: run the nightly jobs under the lock."
import sys

from jobs.lock import acquire, release


def main(argv):
    if argv[1:] != ["run"]:
        print("usage: python -m jobs run", file=sys.stderr)
        return 2
    print("waiting for var/run/jobs.lock ...", flush=True)
    acquire()
    try:
        print("running nightly jobs: rollup, cleanup, export")
    finally:
        release()
    print("done")
    return 0


sys.exit(main(sys.argv))
