#ifndef CSQLITESETUP_H
#define CSQLITESETUP_H

/// Sets SQLite's process-wide options; SQLITE_OK, or SQLITE_MISUSE when SQLite was already in use (it then keeps
/// its defaults). sqlite3_config is variadic: Swift cannot call it.
int cb_sqlite_configure(void);

#endif
