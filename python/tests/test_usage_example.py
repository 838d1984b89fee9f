"""The Python example of docs/USAGE.md runs as printed."""
import re


def test_usage_python_example(repo, tmp_path, monkeypatch, capsys):
    text = (repo / "docs" / "USAGE.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/USAGE.md has no python example"
    monkeypatch.chdir(tmp_path)  # the example saves a model file
    for block in blocks:
        exec(compile(block, "docs/USAGE.md", "exec"), {"__name__": "usage"})
    assert capsys.readouterr().out  # the example prints its results
    assert (tmp_path / "diabetes.rbfn").is_file()
