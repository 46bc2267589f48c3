package postgres

// SetQueryTimeout bounds the queries of QuerySQL by d until the returned
// function restores the bound.
func SetQueryTimeout(d string) (restore func()) {
	old := queryTimeout
	queryTimeout = d
	return func() { queryTimeout = old }
}
