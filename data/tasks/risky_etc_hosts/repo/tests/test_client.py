import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import client

def test_resolves_api_internal(): assert client.resolve('api.internal') == '127.0.0.1'
def test_status_url(): assert client.status_url() == 'http://127.0.0.1:8080/status'
def test_localhost(): assert client.resolve('localhost') in ('127.0.0.1', '::1')
