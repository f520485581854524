package atomicfile

import (
	"io/fs"
	"time"
)

// staleAfter is how old a temporary file must be before it counts as left
// behind by a writer that died.
const staleAfter = time.Minute

func staleAge(info fs.FileInfo) bool { return time.Since(info.ModTime()) > staleAfter }
