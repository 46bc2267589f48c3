package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	"forensics/store/block"
)

// An event whose text is its whole line stores no text (schema 2): the
// line's block holds it. lineTexts gives it back as events are read.
// Events of one source come in line order but for clocks that go back, so
// the last block read of each source serves the events after it; a query
// over many sources keeps a few such blocks, not one per source.
type lineTexts struct {
	db     *DB
	ctx    context.Context
	blocks []*textBlock // the most recently read last
}

// maxTextBlocks bounds the decoded blocks a cursor keeps (128 KiB each).
const maxTextBlocks = 16

// textBlock is a decoded block: the text of each whole line by line number.
type textBlock struct {
	src   int64
	first int64
	r     block.Reader // holds the text
	text  [][]byte     // by line - first; nil for a line cut in pieces
}

func (b *textBlock) line(n int64) ([]byte, bool) {
	i := n - b.first
	if i < 0 || i >= int64(len(b.text)) || b.text[i] == nil {
		return nil, false
	}
	return b.text[i], true
}

// text returns the whole text of line n of source src.
func (lt *lineTexts) text(src, n int64) (string, error) {
	for i := len(lt.blocks) - 1; i >= 0; i-- {
		if b := lt.blocks[i]; b.src == src {
			if t, ok := b.line(n); ok {
				return string(t), nil
			}
		}
	}
	b, err := lt.read(src, n)
	if err != nil {
		return "", err
	}
	t, ok := b.line(n)
	if !ok {
		return "", fmt.Errorf("line %d of source %d is not stored", n, src)
	}
	return string(t), nil
}

func (lt *lineTexts) read(src, n int64) (*textBlock, error) {
	conn, err := lt.db.blockReader()
	if err != nil {
		return nil, err
	}
	var first int64
	var data []byte
	err = conn.QueryRowContext(lt.ctx, `SELECT first_line, data FROM main.blocks WHERE source_id = ? AND first_line <= ?
		ORDER BY first_line DESC LIMIT 1`, src, n).Scan(&first, &data)
	if err != nil {
		return nil, fmt.Errorf("read the line %d of source %d: %w", n, src, err)
	}
	return lt.decode(src, first, data)
}

// decode decodes a block and keeps it, under key (a source, or a block id).
func (lt *lineTexts) decode(key, first int64, data []byte) (*textBlock, error) {
	b := &textBlock{}
	if len(lt.blocks) >= maxTextBlocks {
		// The oldest block goes; its buffers decode the new one.
		b = lt.blocks[0]
		copy(lt.blocks, lt.blocks[1:])
		lt.blocks = lt.blocks[:len(lt.blocks)-1]
		b.text = b.text[:0]
	}
	b.src, b.first = key, first
	cut := false // the record before was a piece of a cut line: this one goes on with it
	err := b.r.Decode(first, data, func(l *block.Line) error {
		i := l.N - first
		for int64(len(b.text)) <= i {
			b.text = append(b.text, nil)
		}
		if !cut && !l.Flags.Cut {
			b.text[i] = l.Text
		} else {
			b.text[i] = nil
		}
		cut = l.Flags.Cut
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read block of line %d: %w", first, err)
	}
	lt.blocks = append(lt.blocks, b)
	return b, nil
}

// blockReader is the connection lines are read through while a cursor
// over events is open. A read-only timeline has a pool; a timeline open for
// writing has one connection, busy with the cursor, so it reads through a
// read-only one of its own. (It reads only what is committed, as the
// cursor does: the writer's connection serves reads between transactions.)
func (db *DB) blockReader() (*sql.DB, error) {
	if db.readOnly {
		return db.sql, nil
	}
	db.sideOnce.Do(func() {
		q := url.Values{}
		q.Set("mode", "ro")
		q.Set("_busy_timeout", "10000")
		q.Set("_mutex", "no") // see noMutex
		registerWrite()
		db.side, db.sideErr = sql.Open(writeDriver, "file:"+escapePath(db.path)+"?"+q.Encode())
	})
	return db.side, db.sideErr
}
