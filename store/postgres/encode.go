package postgres

// Events' attributes are stored as the SQLite backend stores them, a JSON
// object of strings in the order logged, so a query written for one
// backend's attrs column reads the other's (cast to jsonb here to use ->>).

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullInt(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}
