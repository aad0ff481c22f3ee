"Rollouts: deterministic prompts, a template that never names the harness, horizon-sharing prefixes, recorded failures, all four modes."
import json, math, os, subprocess, sys, time
import pytest
from hibd.harnesses import HARNESSES
from hibd.models import ScriptedBackend, Cache, CallIncomplete, OpenAIBackend
from stub_server import serve_stub
from hibd.rollout import (rollout, belief_messages, leaked_words, messages_hash, parse_action, SYSTEM_PROMPT, REACT_PROMPT,
                          react_messages, Stopped)
from hibd.schema import example_belief
from hibd.tasks import load_task

TASK = 'code_variance_off_by_one'
GOOD = json.dumps(example_belief(**{'next_action_recommendation.action': 'python -m pytest -q'}))
RISKY = json.dumps(example_belief(**{'next_action_recommendation.action': 'rm -rf src'}))


class Capture(ScriptedBackend):
    "A scripted backend that keeps every message list it is asked about."
    def __init__(self, *a, **kw): super().__init__(*a, **kw); self.seen = []
    def elicit(self, messages, **kw): self.seen.append(messages); return super().elicit(messages, **kw)


PROG = f"""
import json
from hibd.rollout import rollout
from hibd.models import ScriptedBackend
replies = json.loads({json.dumps(json.dumps([GOOD, 'garbage']))})
recs = rollout({TASK!r}, 'H1', ScriptedBackend(replies), 3, max_retries=0)
print(json.dumps([r['prompt_hash'] for r in recs]))
"""

def test_prompts_byte_identical_across_processes():
    outs = []
    for hs in ('0', '4242'):
        env = {**os.environ, 'PYTHONHASHSEED': hs}
        r = subprocess.run([sys.executable, '-c', PROG], capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        outs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert len(outs[0]) == 4 and len(set(outs[0])) == 4
    assert outs[0] == outs[1]


def test_previous_belief_rendered_with_sorted_keys():
    t = load_task(TASK)
    b = example_belief()
    shuffled = {k: dict(reversed(list(v.items()))) for k, v in reversed(list(b.items()))}
    assert messages_hash(belief_messages(t, 1, 'o', b, [])) == messages_hash(belief_messages(t, 1, 'o', shuffled, []))


@pytest.mark.parametrize('hid', list(HARNESSES))
def test_template_never_names_the_harness(hid):
    be = Capture([RISKY])
    recs = rollout(TASK, hid, be, 2, mode='replay')
    assert len(be.seen) == 3
    for msgs, rec in zip(be.seen, recs):
        obs = rec['observation']
        stripped = [{**m, 'content': m['content'].replace(obs, '')} for m in msgs]
        assert obs in msgs[1]['content']
        assert leaked_words(stripped) == [], (hid, leaked_words(stripped))
        assert hid not in stripped[1]['content'] and HARNESSES[hid].name not in stripped[1]['content']
    assert leaked_words([{'role': 'system', 'content': SYSTEM_PROMPT}, {'role': 'system', 'content': REACT_PROMPT}]) == []


def test_horizon_not_told_unless_announced():
    t = load_task(TASK)
    assert 'Step 2.' in belief_messages(t, 2, 'o', None, [])[1]['content']
    assert 'Step 2 of 3.' in belief_messages(t, 2, 'o', None, [], K=3)[1]['content']
    be = Capture([GOOD])
    rollout(TASK, 'H0', be, 1, announce_horizon=True)
    assert all('of 1.' in m[1]['content'] for m in be.seen)


KEYS = ('step', 'prompt_hash', 'observation', 'action', 'belief', 'ok', 'proposal', 'commands_shown')

def test_horizon_sharing_prefixes_equal_shorter_rollouts(tmp_path):
    cache = Cache(tmp_path/'calls.jsonl')
    be = ScriptedBackend([GOOD, RISKY, 'garbage'], cache=cache)
    long = rollout(TASK, 'H3', be, 3, max_retries=0)
    hits = be.hits
    short = rollout(TASK, 'H3', be, 1, max_retries=0)
    assert be.hits == hits, 'the shorter rollout asked the model again: its prompts differ from the prefix'
    assert len(long) == 4 and len(short) == 2
    for a, b in zip(long[:2], short):
        assert {k: a[k] for k in KEYS} == {k: b[k] for k in KEYS}
        assert a['terminal']['result'] == b['terminal']['result']
    assert all(r['terminal'] is not None for r in long)   # every prefix has its own terminal outcome
    announced = rollout(TASK, 'H3', be, 1, announce_horizon=True, max_retries=0)
    assert announced[0]['prompt_hash'] != short[0]['prompt_hash']


def test_garbage_output_recorded_and_run_continues():
    be = ScriptedBackend(['{"belief_state": oops', GOOD])
    recs = rollout(TASK, 'H0', be, 3, max_retries=0)
    assert [r['ok'] for r in recs] == [False, True, False, True]
    bad = recs[0]
    assert bad['belief'] is None and bad['raw_texts'] == ['{"belief_state": oops'] and bad['error']
    assert bad['proposal'] is None and bad['tokens']['completion'] is not None
    json.dumps(recs)   # JSON-serialisable
    be2 = Capture(['garbage', GOOD])
    rollout(TASK, 'H0', be2, 2, max_retries=0)
    assert 'Your previous belief:\nnone' in be2.seen[1][1]['content']       # a failure is never replaced by a placeholder
    assert '"belief_state"' in be2.seen[2][1]['content']


def test_gate_on_recommendation_every_step_every_mode():
    for mode in ('replay', 'imagined', 'agent', 'agent_free'):
        be = ScriptedBackend([RISKY] if mode != 'agent_free' else [RISKY, 'Thought: clean up\nAction: rm -rf src'])
        recs = rollout(TASK, 'H2', be, 2, mode=mode)
        for r in recs:
            assert r['proposal'] is not None and r['proposal']['blocked'] is True and r['proposal']['risk_class'] == 'delete', (mode, r['proposal'])
        if mode == 'replay': assert [r['action'] for r in recs[1:]] == list(load_task(TASK).trajectory[:2])
        if mode == 'imagined':
            assert all(not r['executed'] and r['transitions'] == [] and r['terminal'] is None for r in recs)
            assert '[not executed]' in recs[1]['observation'] and 'rm -rf src' in recs[1]['observation']
        if mode in ('agent', 'agent_free'):
            assert recs[1]['action'] == 'rm -rf src' and recs[1]['gate']['blocked'] is True
            assert recs[1]['transitions'] == [] and 'not permitted' in recs[1]['observation']
            assert recs[-1]['terminal']['result'] == 'fail'


def test_agent_mode_executes_under_h0():
    recs = rollout(TASK, 'H0', ScriptedBackend([json.dumps(example_belief(**{'next_action_recommendation.action': 'touch NEWFILE'}))]), 1, mode='agent')
    assert recs[1]['executed'] and recs[1]['transitions'][0]['changes'][0]['path'] == 'NEWFILE'
    assert recs[1]['proposal']['blocked'] is False


def test_agent_free_never_feeds_the_belief_back():
    be = Capture([GOOD, 'Thought: run the tests\nAction: python -m pytest -q'])
    recs = rollout(TASK, 'H0', be, 2, mode='agent_free')
    assert recs[1]['action'] == 'python -m pytest -q' and recs[1]['react']['action'] == 'python -m pytest -q'
    t = load_task(TASK)
    react = react_messages(t, 1, recs[1]['observation'], [(1, 'python -m pytest -q', '')])
    assert 'belief' not in react[1]['content'].lower() and 'Belief' not in react[0]['content']
    assert parse_action('Thought: x\nAction: ls') == 'ls'


def test_replay_rejects_too_long_K():
    with pytest.raises(ValueError, match='replay needs K <='):
        rollout(TASK, 'H0', ScriptedBackend([GOOD]), 99)


def test_rollout_wall_limit_is_not_a_result():
    "A rollout whose wall budget ran out raises: a shorter list returned as finished would be saved as finished and never redone."
    seen = []
    with pytest.raises(Stopped, match='rollout_wall_s'):
        rollout(TASK, 'H0', ScriptedBackend([GOOD]), 3, wall_s=0.001, on_step=seen.append)
    assert seen == []                                    # no record made with a placeholder belief


def test_call_that_does_not_finish_ends_the_rollout():
    "An endpoint that never answers: the call ends at its bound with `CallIncomplete`, or at the rollout's wall budget with `Stopped`."
    srv = serve_stub(delay=math.inf)
    try:
        t0 = time.monotonic()
        with pytest.raises(CallIncomplete) as e:
            rollout(TASK, 'H0', OpenAIBackend('stub-model', base_url=srv.url, call_timeout=0.3), 2)
        assert e.value.why == 'timeout' and time.monotonic() - t0 < 30      # not the default 120 s bound
        with pytest.raises(Stopped, match='rollout_wall_s'):
            rollout(TASK, 'H0', OpenAIBackend('stub-model', base_url=srv.url), 2, wall_s=5)
        assert srv.hits == 2      # the budget ended the call in flight (5 s: a loaded machine starts the sandbox first)
    finally: srv.shutdown()


def test_prompts_do_not_show_the_clock():
    "`ls -la` shows the sandbox /tmp's creation time: H0 and H2 once got different prompts minutes apart."
    import re
    be = Capture([GOOD])
    recs = rollout('risky_etc_hosts', 'H0', be, 1)
    assert recs[1]['action'] == 'ls -la' and '..' in recs[1]['observation']
    shown = be.seen[1][1]['content']
    assert '<mtime> ..' in shown and not re.search(r'\b\d\d:\d\d\b', shown), shown
