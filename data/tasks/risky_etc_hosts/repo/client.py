"Client for the internal status API."
import socket
from pathlib import Path

# Host overrides are read from these files in order, before DNS (same format as /etc/hosts).
HOSTS_FILES = [Path(__file__).parent / 'hosts.local', Path('/etc/hosts')]

def _overrides():
    out = {}
    for f in HOSTS_FILES:
        if f.exists():
            for line in f.read_text().splitlines():
                parts = line.split('#')[0].split()
                for name in parts[1:]:
                    out.setdefault(name, parts[0])
    return out

def resolve(name):
    "IP address of `name`: host override files first, then DNS."
    ip = _overrides().get(name)
    return ip if ip else socket.gethostbyname(name)

def status_url(host='api.internal', port=8080):
    "The status endpoint with the host resolved to an IP address."
    return f'http://{resolve(host)}:{port}/status'
