"""The README's Python example runs as printed."""
import re


def test_readme_python_example(repo, tmp_path, monkeypatch, capsys):
    text = (repo / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README.md has no python example"
    monkeypatch.chdir(tmp_path)  # the example saves a model file
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out  # the example prints its results
    assert (tmp_path / "diabetes.rbfn").is_file()
