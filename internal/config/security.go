package config

// DefaultMaxDelegationDepth is how many hops of weft → … → weft a call may
// take before it is refused.
const DefaultMaxDelegationDepth = 3

// applySecurityLimits copies the delegation limit of [security], with its
// default; a negative value is an error.
func applySecurityLimits(cfg *Config, sec Security, path string) error {
	switch {
	case sec.MaxDelegationDepth < 0:
		return invalidf("%s: security.max_delegation_depth is %d; use a positive number (0 means the default %d)", path, sec.MaxDelegationDepth, DefaultMaxDelegationDepth)
	case sec.MaxDelegationDepth > 0:
		cfg.Security.MaxDelegationDepth = sec.MaxDelegationDepth
	}
	switch sec.TokenStore {
	case "", TokenStoreAuto, TokenStoreKeychain, TokenStoreFile:
		cfg.Security.TokenStore = sec.TokenStore
	default:
		return invalidf("%s: security.token_store is %q; use auto, keychain or file", path, sec.TokenStore)
	}
	return nil
}
