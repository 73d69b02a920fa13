"""The exception bad input raises."""

from typing import Optional


class InputError(ValueError):
    """Bad input: a trace row, a topology, a policy or a sweep spec that Proxima refuses.

    ``str(error)`` is the very message the ``proxima`` command prints after ``error:``,
    ``FILE:LINE: field: what is wrong``; its parts are attributes:

    - ``file``: the file as given, or the option the value came from (``--topology``,
      ``--trace``, ``--policy``, ``--mix``) when it was not a file;
    - ``line``: the 1-based line, or ``None``;
    - ``field``: the column, JSON path or key at fault;
    - ``message``: what is wrong.
    """

    def __init__(
        self,
        text: str,
        file: Optional[str] = None,
        line: Optional[int] = None,
        field: Optional[str] = None,
        message: Optional[str] = None,
    ) -> None:
        super().__init__(text)
        self.file = file
        self.line = line
        self.field = field
        self.message = message if message is not None else text

    def __reduce__(self):  # so that the error survives pickling (Ray ships it to the driver)
        return (type(self), (str(self), self.file, self.line, self.field, self.message))
