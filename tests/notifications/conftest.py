from tests.platform.conftest import clean_outcome, make_bot  # noqa: F401 (make_bot: a fixture)
