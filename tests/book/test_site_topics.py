"""The practical core of training recurrent networks can be found on the built site (issue 17):
each topic is named on the page that demonstrates it, and the architecture diagrams and the
figures of those demonstrations are drawn there with their alt texts.

A topic that silently disappears from a chapter (a cell deleted, a section rewritten) fails here.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from .conftest import ROOT

# topic -> (a pattern, case-insensitive, over the page's text; the chapters that must show it)
TOPICS = {
    "perplexity defined": (r"is the perplexity", ["00_introduction"]),
    "the fair die": (r"fair die", ["00_introduction"]),
    "<unk> changes perplexity": (r"perplexity depends on the vocabulary", ["00_introduction"]),
    "padding": (r"\bpadding\b", ["00_introduction"]),
    "masks": (r"\bmask\b", ["00_introduction"]),
    "teacher forcing": (r"teacher forcing",
                        ["00_introduction", "01_embeddings", "02_srn_words"]),
    "sampling": (r"\bsampl(e|es|ed|ing)\b", ["01_embeddings", "02_srn_words"]),
    "generation": (r"\bgenerat(e|es|ed|ion)\b", ["01_embeddings", "02_srn_words"]),
    "a training loop written out": (r"training loop, written out", ["01_embeddings"]),
    "BPTT as a product of Jacobians": (r"product of Jacobians", ["02_srn", "03_gates"]),
    "truncated BPTT": (r"truncated backpropagation through time", ["02_srn_words"]),
    "overfitting": (r"\boverfit(ting)?\b", ["01_embeddings", "02_srn_words"]),
    "early stopping": (r"early stopping", ["01_embeddings", "02_srn_words"]),
    "vanishing gradients": (r"\bvanish(es|ing)?\b", ["03_gates"]),
    "exploding gradients": (r"\bexplod(e|es|ing)\b", ["03_gates", "03_gates_counting"]),
    "gradient clipping": (r"\bclipping\b", ["03_gates", "03_gates_counting"]),
    "initialisation": (r"initiali[sz]ation", ["01_embeddings", "03_gates"]),
    "learning rate": (r"learning rate", ["01_embeddings", "03_gates_counting"]),
    "grammaticality of samples": (r"grammatical", ["02_srn_words"]),
}

# figure name (MyST-NB cell metadata) -> chapter: the diagrams and the demonstrations' figures
FIGURES = {
    "fig-00-padded-batch": "00_introduction",
    "fig-00-unk-perplexity": "00_introduction",
    "fig-01-bengio-diagram": "01_embeddings",
    "fig-02-srn-diagram": "02_srn",
    "fig-03-gru-diagram": "03_gates",
    "fig-03-lstm-diagram": "03_gates",
    "fig-03-diverge": "03_gates",
    "fig-04-decay-diagram": "04_agreement",
    "fig-05-flnn-diagram": "05_dynamical_automata",
    "fig-05-stack-triangles": "05_dynamical_automata_training",
    "fig-06-urn-diagram": "06_unitary",
    "fig-06-eigenvalues": "06_unitary_stacks",
    "fig-06-depth-epochs": "06_unitary",
}


def page_text(site: Path, chapter: str) -> str:
    page = site / "chapters" / f"{chapter}.html"
    assert page.is_file(), f"no page for chapter {chapter}"
    return page.read_text(encoding="utf-8")


def visible_text(markup: str) -> str:
    """The page's words, tags and scripts removed, entities decoded, whitespace collapsed."""
    markup = re.sub(r"<(script|style)\b.*?</\1>", " ", markup, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


@pytest.mark.parametrize("topic", sorted(TOPICS))
def test_every_topic_is_named_where_it_is_shown(site: Path, topic: str):
    pattern, chapters = TOPICS[topic]
    missing = [c for c in chapters
               if not re.search(pattern, visible_text(page_text(site, c)), re.I)]
    assert not missing, f"{topic!r} ({pattern}) is not on the pages of {missing}"


def figure_alt(name: str, chapter: str) -> str:
    """The alt text the chapter's notebook gives the figure called ``name``."""
    notebook = json.loads((ROOT / "chapters" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        mystnb = cell.get("metadata", {}).get("mystnb", {})
        if mystnb.get("figure", {}).get("name") == name:
            return mystnb["image"]["alt"]
    raise AssertionError(f"chapters/{chapter}.ipynb has no figure named {name!r}")


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_diagram_and_demonstration_figure_is_drawn_with_its_alt_text(site: Path,
                                                                           name: str):
    chapter = FIGURES[name]
    text = page_text(site, chapter)
    alt = figure_alt(name, chapter)
    images = [html.unescape(m) for m in re.findall(r'<img [^>]*alt="([^"]*)"', text)]
    assert alt in images, f"{chapter}: no image with the alt text of {name}: {alt[:80]!r}"
    assert f'id="{name}"' in text, f"{chapter}: the figure {name} has no anchor (caption lost?)"
