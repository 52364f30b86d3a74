import os

from conftest import PYTHON_DIR, run_python

BOOTSTRAP = os.path.join(PYTHON_DIR, "ksnap_triton", "_bootstrap")


def test_bootstrap_arms_hook_and_chains_the_shadowed_sitecustomize(tmp_path):
    other = tmp_path / "site"
    other.mkdir()
    (other / "sitecustomize.py").write_text(
        "import os\nopen(os.environ['MARK'], 'w').write('ran')\n")
    mark = tmp_path / "mark"
    code = ("import sys\n"
            "from ksnap_triton import postimport\n"
            "print('armed' if postimport._finder in sys.meta_path else 'not armed')\n")
    env = {"PYTHONPATH": os.pathsep.join([BOOTSTRAP, str(other), PYTHON_DIR]),
           "KSNAP_CAPTURE_DIR": str(tmp_path / "cap"), "MARK": str(mark)}
    r = run_python(["-c", code], env_extra=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "armed"
    assert mark.read_text() == "ran"


def test_bootstrap_is_inert_outside_a_capture(tmp_path):
    env = {"PYTHONPATH": os.pathsep.join([BOOTSTRAP, PYTHON_DIR])}
    r = run_python(["-c", "import sys; print('ksnap_triton.session' in sys.modules)"],
                   env_extra=env)
    assert r.returncode == 0 and r.stdout.strip() == "False"
