"""The shadow's parts: its tables and records, and the reconciliation split by job.

``passviz.recording.shadow.Shadow`` is the entry point; a reconciliation
(``walk.Reconciliation``) is one class per job, each building on those before:

- ``records``: what the shadow remembers of each entity; the fast path's fingerprint.
- ``tables``: the shadow's id tables, fresh ids, and entities worded as a delta records them.
- ``state``: one comparison's shared state and work lists.
- ``registration``: ids for what is new; records filled from the live IR.
- ``corruption``: corrupt IR found on the way (own-region cycles, dangling uses, dominance).
- ``liveness``: whether an entity still hangs under the root.
- ``erasure``: erased ops, blocks and values leaving the shadow.
- ``blocks``: block and region changes, block arguments.
- ``positions``: which ops a step really moved.
- ``content``: diffing an op's operands, results, attributes and the rest.
- ``order``: order keys, and the longest run of ops that stayed.
- ``delta``: the step's delta, with replacements matched to ids and ops' texts.
- ``walk``: the walk that puts them together.
"""
