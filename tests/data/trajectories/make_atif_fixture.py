"""Write the ATIF fixtures and `atif_schema.json` with harbor's own converters, models and validator.

harbor 0.25.0 (Apache-2.0, PyPI; needs Python >= 3.12), in a virtual environment of its own:

    python3.12 -m venv /tmp/venv_harbor && /tmp/venv_harbor/bin/pip install harbor==0.25.0
    /tmp/venv_harbor/bin/python tests/data/trajectories/make_atif_fixture.py

It converts two trajectories of this folder the way a harbor trial does after the agent ran (each installed agent's
`convert_and_save_trajectory`), into harbor's trial layout `<task>__<7 characters>/agent/trajectory.json`:
the SWE-agent one (`pytest-dev__pytest-7432.swe-agent.traj.xz`) and the mini-swe-agent v2 tool-call one
(`mswea_v2_toolcall.traj.json`). Each is then checked with harbor's `TrajectoryValidator`, and the JSON Schema of
harbor's pydantic `Trajectory` model is written beside them for the tests.
"""
import json, os, lzma, shutil, tempfile, uuid
os.environ.setdefault('LITELLM_LOCAL_MODEL_COST_MAP', 'True')   # litellm: no network at import
from pathlib import Path
from shortuuid import ShortUUID
from harbor.agents.installed import mini_swe_agent, swe_agent
from harbor.models.trajectories import Trajectory
from harbor.utils.trajectory_validator import TrajectoryValidator

HERE = Path(__file__).parent


def trial_dir(task: str) -> Path:
    "harbor's trial folder name for `task` (`TrialConfig.generate_trial_name`), under atif/."
    d = HERE/'atif'/f"{task[:32].rstrip('_-')}__{ShortUUID().random(length=7)}"/'agent'
    d.mkdir(parents=True)
    return d


def convert(src: Path, task: str, converter):
    tmp = Path(tempfile.mkdtemp())/src.name.removesuffix('.xz')
    tmp.write_bytes(lzma.decompress(src.read_bytes()) if src.suffix == '.xz' else src.read_bytes())
    out = trial_dir(task)/'trajectory.json'
    converter(tmp, out, session_id=str(uuid.uuid4()))
    v = TrajectoryValidator()
    assert v.validate(out), v.errors
    print('wrote', out.relative_to(HERE), out.stat().st_size, 'bytes')


if __name__ == '__main__':
    shutil.rmtree(HERE/'atif', ignore_errors=True)
    convert(HERE/'pytest-dev__pytest-7432.swe-agent.traj.xz', 'pytest-dev__pytest-7432',
            swe_agent.convert_and_save_trajectory)
    convert(HERE/'mswea_v2_toolcall.traj.json', 'demo__calc-1', mini_swe_agent.convert_and_save_trajectory)
    (HERE/'atif_schema.json').write_text(json.dumps(Trajectory.model_json_schema(), indent=1) + '\n')
