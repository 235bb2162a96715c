package atomicfile

import "sync/atomic"

// dirSyncErr, when set, is the error of every SyncDir, that of Commit
// and WriteFile included: a real file system seldom fails one, so tests
// set it through FailDirSync to see how a writer handles ErrDirNotSynced.
var dirSyncErr atomic.Pointer[error]

// FailDirSync makes SyncDir fail with err, and so Commit and WriteFile
// fail to sync the directory after the rename, until the returned restore
// is called. It is for tests of the writers that publish through this
// package; it holds for the whole process, so such a test must not run in
// parallel.
func FailDirSync(err error) (restore func()) {
	dirSyncErr.Store(&err)
	return func() { dirSyncErr.Store(nil) }
}
