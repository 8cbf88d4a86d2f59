"""Render README.md from nbs/index.ipynb (nbdev-readme needs Quarto, which cannot be installed offline).

    python tools/render_readme.py          # write README.md
    python tools/render_readme.py --check  # exit 1 if README.md is out of date
"""
import sys
from pathlib import Path
import nbformat
from nbconvert import MarkdownExporter

root = Path(__file__).resolve().parent.parent

def render() -> str:
    nb = nbformat.read(root/'nbs'/'index.ipynb', as_version=4)
    cells = []
    for c in nb.cells:
        if c.cell_type == 'code':
            lines = c.source.splitlines()
            flags = {l[3:].strip() for l in lines if l.startswith('#|')}
            if 'hide' in flags: continue                  # setup and checks: tested, not shown
            lines = [l for l in lines if not l.startswith('#|')]
            c.outputs = []                                # the README shows code; the notebook tests it
            if lines and lines[0].startswith('%%bash'):   # a shell cell: shown as the commands it runs
                c = nbformat.v4.new_markdown_cell("```sh\n" + "\n".join(lines[1:]) + "\n```")
            else: c.source = "\n".join(lines)
        cells.append(c)
    nb.cells = cells
    body, _ = MarkdownExporter().from_notebook_node(nb)
    head = "<!-- generated from nbs/index.ipynb by tools/render_readme.py: edit the notebook, not this file -->\n\n"
    return head + body.strip() + "\n"

if __name__ == '__main__':
    text, readme = render(), root/'README.md'
    if '--check' in sys.argv:
        if not readme.exists() or readme.read_text() != text:
            sys.exit("README.md is out of date: run `python tools/render_readme.py` and commit it")
        print("README.md is up to date")
    else:
        readme.write_text(text); print(f"wrote {readme}")
