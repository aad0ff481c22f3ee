"""A loopback OpenAI-compatible stub server for tests and benchmarks (not part of hibd).

Tests and benchmarks need a server that answers instantly or after a fixed delay, with scripted replies, and counts its
hits. `serve_stub` starts one on 127.0.0.1 in a background thread. With `delay=math.inf` it never answers (until
`shutdown()`, which is quick: a waiting request is let go unanswered). A scripted reply is a raw model output (see
`completion_dict`), `{'status': N, 'content': message}` for an HTTP error (with `'headers'`, e.g. `Retry-After`), or
`{'body': text}` for a body sent as it is (a cut-off JSON, an HTML page: `'content_type'`, default application/json).
Under pytest, tests/ is on `sys.path` (the rootdir conftest), so a test imports it as
`from stub_server import serve_stub`."""
import json, math, socket, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from hibd.models import completion_dict
from hibd.schema import example_belief

class StubHandler(BaseHTTPRequestHandler):
    "Answers `GET /models` with the stub's model and `POST` (a chat completion) with the next scripted reply."
    protocol_version = 'HTTP/1.1'
    def setup(self):
        super().setup(); self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # no Nagle/delayed-ACK stalls
    def log_message(self, *a): pass
    def _send(self, code, body: dict | str, content_type='application/json', headers=None):
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(code); self.send_header('Content-Type', content_type)
        for k, v in (headers or {}).items(): self.send_header(k, v)
        self.send_header('Content-Length', str(len(data))); self.end_headers(); self.wfile.write(data)
    def do_GET(self):
        self._send(200, {'object': 'list', 'data': [{'id': self.server.model, 'object': 'model', 'owned_by': 'stub'}]})
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get('Content-Length', 0))) or b'{}')
        srv = self.server
        with srv.lock:
            i, srv.hits, srv.inflight = srv.hits, srv.hits + 1, srv.inflight + 1
            srv.max_inflight = max(srv.max_inflight, srv.inflight)
            srv.requests.append(body); srv.times.append(time.monotonic())
        try:
            if srv.delay: srv.stopping.wait(None if math.isinf(srv.delay) else srv.delay)
        finally:
            with srv.lock: srv.inflight -= 1
        if srv.stopping.is_set(): self.close_connection = True; return     # shut down while waiting: no answer
        if srv.reject_tools and ('tools' in body or 'tool_choice' in body):   # as a server without tool calling answers
            return self._send(400, {'error': {'message': 'tools and tool_choice are not supported by this server', 'type': 'invalid_request_error'}})
        reply = srv.replies[i % len(srv.replies)]
        if isinstance(reply, str) and body.get('response_format', {}).get('type') == 'json_object': reply = {'content': reply}   # json mode
        if isinstance(reply, dict) and 'body' in reply:     # sent as it is: a broken reply
            return self._send(reply.get('status', 200), reply['body'], reply.get('content_type', 'application/json'),
                              reply.get('headers'))
        if isinstance(reply, dict) and 'status' in reply:
            return self._send(reply['status'], {'error': {'message': reply.get('content', 'error')}},
                              headers=reply.get('headers'))
        self._send(200, completion_dict(reply, self.server.model, self.server.usage))

class Stub(ThreadingHTTPServer):
    "The stub server: `shutdown` also lets go of requests still waiting out their delay."
    def shutdown(self): self.stopping.set(); super().shutdown()

def serve_stub(replies: list[str | dict] | None = None, # replies in order, cycling (default: one valid belief)
               delay: float = 0.0, # seconds each reply waits (a fixed model latency); math.inf: never answers
               usage: bool = True, # report token usage
               model: str = 'stub-model', # the model name it reports
               reject_tools: bool = False, # answer a request with tools HTTP 400, as a server without tool calling
               port: int = 0 # 0: a free port
              ) -> Stub:
    "Start an OpenAI-compatible stub on 127.0.0.1 (`.url`, `.hits`, `.requests`, their `.times`, `.max_inflight`)."
    srv = Stub(('127.0.0.1', port), StubHandler)
    srv.daemon_threads, srv.request_queue_size = True, 128
    srv.replies, srv.delay, srv.usage, srv.model, srv.reject_tools = replies or [json.dumps(example_belief())], delay, usage, model, reject_tools
    srv.hits, srv.inflight, srv.max_inflight, srv.requests, srv.times = 0, 0, 0, [], []
    srv.lock, srv.stopping = threading.Lock(), threading.Event()
    srv.url = f'http://127.0.0.1:{srv.server_address[1]}/v1'
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return srv

if __name__ == '__main__':   # python tests/stub_server.py DELAY: serve until killed, print the URL (benchmarks/engine.py)
    import sys, time
    s = serve_stub(delay=float(sys.argv[1]) if len(sys.argv) > 1 else 0.0); print(s.url, flush=True); time.sleep(1e9)
