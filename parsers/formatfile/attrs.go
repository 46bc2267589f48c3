package formatfile

import "forensics"

// A format file declares its kinds' attribute keys as data: this is where
// they become keys, checked against the file's own declarations when it is
// loaded (an attribute a message sets is one its kind declares).

func attrKey(name string) forensics.AttrKey { return forensics.AttrKey(name) }

func attrDoc(key string, t forensics.AttrType, doc string) forensics.AttrDoc {
	return forensics.AttrDoc{Key: forensics.AttrKey(key), Type: t, Doc: doc}
}
