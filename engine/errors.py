"""The one exception type that reaches the user as a one-line message and exit status 2."""


class UserError(Exception):
    """Bad input from the user: a file, field or value at fault, named in the message."""
