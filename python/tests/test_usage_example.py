"""The Python examples of docs/USAGE.md and the README run as printed."""
import re


def _run_blocks(path, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)
    assert blocks, "%s has no python example" % path.name
    monkeypatch.chdir(tmp_path)  # the examples save model files
    for block in blocks:
        exec(compile(block, str(path), "exec"), {"__name__": "usage"})


def test_usage_python_example(repo, tmp_path, monkeypatch, capsys):
    _run_blocks(repo / "docs" / "USAGE.md", tmp_path, monkeypatch)
    out = capsys.readouterr().out  # the example prints its results
    # The search's choice matters: its three settings score differently.
    scores = [float(v) for v in re.findall(r"mean R2 ([0-9.]+)", out)]
    assert len(scores) == 3 and len(set(scores)) == 3
    assert "plan: categories, one-hot: basic, plus, pro" in out
    assert (tmp_path / "friedman.rbfn").is_file() and (tmp_path / "churn.rbfn").is_file()


def test_readme_python_example(repo, tmp_path, monkeypatch, capsys):
    # The README runs from the repository root; its model file goes to the test's folder.
    (tmp_path / "tests" / "cli").mkdir(parents=True)
    (tmp_path / "tests" / "cli" / "data").symlink_to(repo / "tests" / "cli" / "data")
    _run_blocks(repo / "README.md", tmp_path, monkeypatch)
    assert (tmp_path / "passengers.rbfn").is_file()
    assert "categories, one-hot" in capsys.readouterr().out
