"""The boards' fixtures (standing phases, a fresh cache), for the method and suite pages that read the boards."""

from tests.boards.conftest import fresh_cache, standing  # noqa: F401 (fixtures)
