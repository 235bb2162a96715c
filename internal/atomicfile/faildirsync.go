package atomicfile

import "sync/atomic"

// dirSyncErr, when set, is the error of every directory sync that
// publishing a file makes: a real file system seldom fails one, so tests
// set it through FailDirSync to see how a writer handles ErrDirNotSynced.
var dirSyncErr atomic.Pointer[error]

// FailDirSync makes Commit and WriteFile fail to sync the directory after
// the rename, with err, until the returned restore is called. It is for
// tests of the writers that publish through this package; it holds for
// the whole process, so such a test must not run in parallel.
func FailDirSync(err error) (restore func()) {
	dirSyncErr.Store(&err)
	return func() { dirSyncErr.Store(nil) }
}

// syncDir is SyncDir, or FailDirSync's error when one is set.
func syncDir(dir string) error {
	if err := dirSyncErr.Load(); err != nil {
		return *err
	}
	return SyncDir(dir)
}
