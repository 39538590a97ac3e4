"""The SQL machinery behind :mod:`contextfold.sqlite` and :mod:`contextfold.postgres`.

* :mod:`~contextfold._sql.schema` - the tables, their installation and upgrade, and the
  driver protocol both databases are reached through.
* :mod:`~contextfold._sql.store` - :class:`~contextfold._sql.store.SQLStore`, the one
  implementation of the store contract in SQL, written once for both databases.

May import: the ground and contracts (``messages``, ``context``, ``errors``, ``tokens``)
and :mod:`contextfold._storage`. Never transports, compaction or the faces.
"""
