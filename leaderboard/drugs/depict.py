"""2D structure drawings with RDKit, made once at import and stored (never per request).

RDKit draws in a child process with a time limit per drawing: a crafted SMILES
(atom labels thousands of characters long) keeps RDKit busy for minutes, and a
bug in its C++ can kill the process that draws. Either way the drug gets a
placeholder message instead of a drawing and the import goes on; the child is
replaced for the next drawing.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass
from multiprocessing.connection import Connection
from types import TracebackType

WIDTH, HEIGHT = 420, 320
# Real structures draw in well under a second into 5-60 kB; anything past these is not a drawing to keep.
SECONDS_PER_DRAWING = 10.0
MAX_SVG_CHARS = 1_000_000
# Starting the child and importing RDKit there (about a second; more on a loaded machine).
STARTUP_SECONDS = 60


@dataclass(frozen=True)
class Depiction:
    svg: str  # "" when there is no drawing
    error: str  # why not ("" when there is one)


def draw_here(smiles: str) -> Depiction:
    """An SVG drawing of ``smiles``, or the reason there is none, drawn in this process (no time limit)."""
    # RDKit is heavy (about a second to import): only the drawing child loads it, not every process
    # that imports this module.
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
    if len(svg) > MAX_SVG_CHARS:
        return Depiction("", "This drug's structure drawing came out far too large to show, so there is none.")
    # An <img> loads it as a document: the XML declaration may stay; nothing in it runs.
    return Depiction(svg, "")


def _serve(conn: Connection) -> None:
    """The child's loop: a SMILES in, a (svg, error) pair out, until the parent closes the pipe."""
    import rdkit.Chem.Draw.rdMolDraw2D  # noqa: F401 (imported before "ready", so no drawing pays for it)

    conn.send("ready")
    while True:
        try:
            smiles = conn.recv()
        except EOFError:
            return
        depiction = draw_here(smiles)
        conn.send((depiction.svg, depiction.error))


class Drawer:
    """Draws in a child process, at most ``seconds`` per drawing; use as a context manager around many drawings.

    Spawned, not forked: the parent may hold database connections and threads
    that a forked child must not share.
    """

    def __init__(self, seconds: float = SECONDS_PER_DRAWING) -> None:
        self.seconds = seconds
        self._child: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None

    def __enter__(self) -> Drawer:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _start(self) -> Connection:
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        self._child = context.Process(target=_serve, args=(child,), daemon=True, name="rdkit-drawer")
        self._child.start()
        child.close()
        self._conn = parent
        if not (parent.poll(STARTUP_SECONDS) and parent.recv() == "ready"):
            self.close()
            raise OSError(f"the drawing process did not start within {STARTUP_SECONDS} s")
        return parent

    def draw(self, smiles: str) -> Depiction:
        """The drawing of ``smiles``, or a placeholder message when RDKit overran its time or died."""
        if not (smiles or "").strip():
            return draw_here(smiles)  # nothing to draw: no child needed
        try:
            conn = self._conn or self._start()
            conn.send(smiles)
            if conn.poll(self.seconds):
                svg, error = conn.recv()
                return Depiction(svg, error)
            outcome = f"took longer than {self.seconds:g} s"
        except (EOFError, OSError):  # the child died inside RDKit
            outcome = "made RDKit fail"
        self.close()
        return Depiction("", f"Drawing this drug's structure {outcome}, so there is no structure drawing.")

    def close(self) -> None:
        """Stop the child (killed: it may be stuck inside RDKit); the next drawing starts a new one."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._child is not None:
            self._child.kill()
            self._child.join(timeout=10)
            self._child = None
