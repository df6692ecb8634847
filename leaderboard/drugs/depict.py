"""2D structure drawings with RDKit, made once at import and stored (never per request)."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 420, 320


@dataclass(frozen=True)
class Depiction:
    svg: str  # "" when there is no drawing
    error: str  # why not ("" when there is one)


def draw(smiles: str) -> Depiction:
    """An SVG drawing of ``smiles``, or the reason there is none (an empty or unreadable SMILES)."""
    from rdkit import Chem, RDLogger
    from rdkit.Chem.Draw import rdMolDraw2D

    smiles = (smiles or "").strip()
    if not smiles:
        return Depiction("", "No SMILES is given for this drug, so there is no structure drawing.")
    RDLogger.DisableLog("rdApp.*")  # type: ignore[attr-defined]  # a bad SMILES is reported on the page, not in the import's log
    molecule = Chem.MolFromSmiles(smiles)
    if molecule is None:
        return Depiction("", "RDKit could not read this drug's SMILES, so there is no structure drawing.")
    drawer = rdMolDraw2D.MolDraw2DSVG(WIDTH, HEIGHT)
    options = drawer.drawOptions()
    options.clearBackground = False  # type: ignore[assignment]  # the page's background shows through (dark and light themes)
    options.addStereoAnnotation = True  # type: ignore[assignment]
    rdMolDraw2D.PrepareAndDrawMolecule(drawer, molecule)
    drawer.FinishDrawing()
    svg = drawer.GetDrawingText()
    # An <img> loads it as a document: the XML declaration may stay; nothing in it runs.
    return Depiction(svg, "")
