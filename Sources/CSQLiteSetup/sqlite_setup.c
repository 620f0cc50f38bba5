#include <sqlite3.h>

#include "CSQLiteSetup.h"

int cb_sqlite_configure(void) {
    // Multi-thread mode: no mutex taken around every call on a connection (each bind, step and reset of the
    // journal's inserts). GRDB uses each connection from one serial queue at a time, the only mode it supports,
    // so the serialized mode's locks guard nothing here.
    int code = sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    if (code != SQLITE_OK) return code;
    // No process-wide count of SQLite's memory (a mutex and a counter per allocation): nothing here reads it.
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
