"""The domain's refusals: one hierarchy, raised by the store and the services alike.

Every class is a ``DomainError`` (so a surface can show any refusal as one line) and keeps the
built-in base it always had (``ValueError``, ``LookupError``, ``PermissionError``), so callers
that catch those still do. The message always says what is missing or wrong.
"""

from __future__ import annotations


class DomainError(Exception):
    """A business rule refused an action; the message says exactly why."""


class ReasonRequired(DomainError, ValueError):
    """The action needs a written reason (a rejection, a waiver, an adjudication, ...)."""


class ApprovalRefused(DomainError, ValueError):
    """Approval is not allowed yet; the message says exactly what is missing."""


class BrokenNotOpened(ApprovalRefused):
    """Approval refused: broken evidence the reviewer has neither opened nor waived."""

    def __init__(self, message: str, trajectory_ids: tuple[str, ...]) -> None:
        super().__init__(message)
        self.trajectory_ids = trajectory_ids  # exact ids, in their own case, for the screens


class PromotionError(DomainError, ValueError):
    """A promotion action is not allowed; the message says why."""


class UnknownTrajectory(DomainError, LookupError):
    """No trajectory with that key in this store."""


class UnknownSession(DomainError, LookupError):
    """No agreement session with that id or name in this store."""


class AlreadyCommitted(DomainError, ValueError):
    """This reviewer already committed a judgement on the item; judgements are final."""


class NotAssigned(DomainError, PermissionError):
    """The session's items are assigned, and this item is not the reviewer's to judge."""


class NotYetCommitted(DomainError, PermissionError):
    """Replay's answer is revealed only after the reviewer commits a judgement."""


class ConcurrentChangeError(DomainError, RuntimeError):
    """Another reviewer changed what this write was based on (a rule's row version, the ruling
    in force); nothing was saved. ``by``, ``what`` and ``at`` say who did what, for the screen."""

    def __init__(self, message: str, *, kind: str, key: int, expected: int, found: int, by: str | None,
                 what: str | None, at: str | None) -> None:
        super().__init__(message)
        self.kind, self.key, self.expected, self.found = kind, key, expected, found
        self.by, self.what, self.at = by, what, at


class RunNotUsable(DomainError, ValueError):
    """The replay run is missing, not complete (a cancelled run's evidence is partial) or has
    nothing to judge: no agreement session can rest on it."""
