"""The reviews service: what a recorded commit puts at risk, and edits that undo an instructed change.

Named ``reviews`` everywhere (folder, package, durable consumer, image, k8s objects, log field): the
library ``codememory.review`` (``libs/codememory/review/``, the ``ReviewDiff`` RPC and ``codememory
review``) owns the singular name in the shared ``codememory`` namespace, and two folders providing
``codememory/review/`` would shadow each other.
"""
