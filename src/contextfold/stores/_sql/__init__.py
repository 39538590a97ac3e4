"""The SQL machinery the SQLite and PostgreSQL stores share.

* :mod:`~contextfold.stores._sql.schema` - the tables, their installation and upgrade,
  and the driver protocol both databases are reached through.
* :mod:`~contextfold.stores._sql.store` - :class:`~contextfold.stores._sql.store.SQLStore`,
  the one implementation of the store contract in SQL, written once for both databases.
* :mod:`~contextfold.stores._sql.rewrite` - history rewrites in SQL, archiving what they
  replace.
* :mod:`~contextfold.stores._sql.lease` - the compaction lease row (SQLite).

May import: the ground and contracts (``messages``, ``errors``, ``tokens``), the store
contract (:mod:`contextfold.stores.base`) and the rest of the stores' machinery
(:mod:`contextfold.stores._rows`, :mod:`contextfold.stores._connection_state`). Never
transports, compaction or the faces.
"""
