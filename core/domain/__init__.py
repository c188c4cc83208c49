"""The bottom layer of the core: values and refusals every other layer may import.

* ``core.domain.labels``: ground-truth label values (``LabelText``, ``Label``, ``TrajectoryKey``,
  ``GroundTruth``, the labelling queue's rows and filter).
* ``core.domain.agreement``: the agreement protocol's values (answers, ``PopulationItem``,
  ``BlindItem``, ``SessionInfo``, ``Reveal``, ``Progress``, the gate's defaults).
* ``core.domain.errors``: the ``DomainError`` hierarchy (``ReasonRequired``, ``ApprovalRefused``,
  ``BrokenNotOpened``, ``PromotionError``, ``UnknownTrajectory``, ``UnknownSession``,
  ``AlreadyCommitted``, ``NotYetCommitted``).

It imports nothing above the leaf helpers (``core.hashing``), so the store, the services, the
CLI and the GUI all read the same classes.
"""
