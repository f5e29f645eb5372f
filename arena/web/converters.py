"""Path converters of the pages."""


class IdConverter:
    """A database id: up to 18 digits, so any id in a URL fits a 64-bit integer column (a longer
    number is a 404, not an overflow error in the database)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))
