package oauth

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// TestStoredUsers lists, per server, the users with a login and those with
// secrets, from both stores, names only: the shared login, an agent's
// record and a logged-out user are not listed.
func TestStoredUsers(t *testing.T) {
	keyring.MockInit()
	file := func(dir string) Store { return newFileStore(dir) }
	keychain := func(dir string) Store {
		return &keychainStore{stamp: newFileStore(dir).stampPath()}
	}
	for name, open := range map[string]func(string) Store{"file": file, "keychain": keychain} {
		t.Run(name, func(t *testing.T) {
			store := open(t.TempDir())
			m := NewManager(ManagerOptions{Store: store})
			for _, rec := range []*Record{
				{Server: UserKey("gh", "bob"), AccessToken: "tok-bob"},
				{Server: UserKey("gh", "alice"), AccessToken: "tok-alice"},
				{Server: UserKey("gh", "carol"), AccessToken: "tok-carol"},
				{Server: "gh", AccessToken: "tok-shared"},
				{Server: "gh@coder", AccessToken: "tok-agent"},
			} {
				if err := store.Save(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.SetSecret("db", "alice", "DB_PASSWORD", "pw-alice"); err != nil {
				t.Fatal(err)
			}
			if err := store.Delete(UserKey("gh", "carol")); err != nil {
				t.Fatal(err)
			}
			got, err := m.StoredUsers()
			if err != nil {
				t.Fatal(err)
			}
			want := StoredUsers{
				Logins:  map[string][]string{"gh": {"alice", "bob"}},
				Secrets: map[string][]string{"db": {"alice"}},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("StoredUsers = %+v, want %+v", got, want)
			}
			if s := strings.Join(append(got.Logins["gh"], got.Secrets["db"]...), " "); strings.Contains(s, "tok-") || strings.Contains(s, "pw-") {
				t.Errorf("StoredUsers leaks a secret: %s", s)
			}
		})
	}
}
