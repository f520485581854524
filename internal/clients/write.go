package clients

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/weft-dev/weft/internal/atomicfile"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// check refuses an entry the client cannot hold.
func (c Client) check(e Entry) error {
	if !nameRE.MatchString(e.Name) {
		return fmt.Errorf("name %q: use 1-64 letters, digits, _ or -", e.Name)
	}
	if e.URL != "" && !c.http {
		return fmt.Errorf("%s's config takes only local commands, not a URL; drop --http to have it start `weft mcp-server`", c.Title)
	}
	return nil
}

// Snippet is the text of e as the client's file holds it, for --print.
func (c Client) Snippet(e Entry) (string, error) {
	if err := c.check(e); err != nil {
		return "", err
	}
	if c.format == codexTOML {
		return codexTable(e)
	}
	out, err := setServer(nil, jsonServersKey(c.format), e.Name, jsonEntry(c.format, e))
	return string(out), err
}

// Edit returns the content of the client's file data with e written in,
// everything else kept.
func (c Client) Edit(data []byte, e Entry) ([]byte, error) {
	if err := c.check(e); err != nil {
		return nil, err
	}
	if c.format == codexTOML {
		return setCodexServer(data, e)
	}
	return setServer(data, jsonServersKey(c.format), e.Name, jsonEntry(c.format, e))
}

// Write puts e into the client's file at path: an atomic replace, with the
// old content kept beside it as path.bak. A new file is created 0600 in a
// 0700 directory.
func (c Client) Write(path string, e Entry) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot read %s: %w", path, err)
	}
	data, err := c.Edit(old, e)
	if err != nil {
		return fmt.Errorf("%s: %w; fix the file or add the entry by hand (weft client add %s --print shows it)", path, err, c.Name)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", filepath.Dir(path), err)
	}
	if old != nil {
		if err := atomicfile.WriteFile(path+".bak", old, 0o600); err != nil {
			return fmt.Errorf("cannot keep a backup of %s: %w", path, err)
		}
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
