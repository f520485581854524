package gateway

// jsonMembers calls f with each member of obj, a JSON object that is
// valid JSON (json.Valid), in order: the key's raw bytes between its
// quotes (escapes left as they are) and the value's raw bytes. It is the
// stateless relay's read of a request (take), which needs a few members'
// bytes and the names of the rest: one walk over bytes already checked,
// where json.Unmarshal into a map checks them again and copies every
// value. It reports false when obj is not an object or f returned false.
func jsonMembers(obj []byte, f func(key, value []byte) bool) bool {
	i := skipJSONSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	for i++; ; {
		i = skipJSONSpace(obj, i)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		}
		if obj[i] != '"' {
			return false
		}
		keyEnd := skipJSONString(obj, i)
		key := obj[i+1 : keyEnd-1]
		i = skipJSONSpace(obj, keyEnd)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		start := skipJSONSpace(obj, i+1)
		i = skipJSONValue(obj, start)
		if !f(key, obj[start:i]) {
			return false
		}
	}
}

func skipJSONSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// skipJSONValue returns the end of the valid JSON value at data[i].
func skipJSONValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipJSONString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipJSONString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(data) && !endsLiteral(data[i]) {
			i++
		}
		return i
	}
}

// skipJSONString returns the end of the string whose quote is data[i].
func skipJSONString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}
