package cbaudit

import "forensics"

// The attribute keys the audit parser sets. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrID          forensics.AttrKey = "id"
	AttrName        forensics.AttrKey = "name"
	AttrDescription forensics.AttrKey = "description"
	AttrUser        forensics.AttrKey = "user"
	AttrRemote      forensics.AttrKey = "remote"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrID, Type: forensics.AttrInt, Doc: "the audit event's id: 20480 and up memcached's, 8192 and up ns_server's, 28672 and up the query service's (the audit descriptors)"},
	{Key: AttrName, Type: forensics.AttrText, Doc: "the audit event's name (\"select bucket\", \"/admin/stats API request\")"},
	{Key: AttrDescription, Type: forensics.AttrText, Doc: "what the audit event records, as the service wrote it"},
	{Key: AttrUser, Type: forensics.AttrText, Doc: "who did it: real_userid as domain:user (local:@ns_server, builtin:Administrator)"},
	{Key: AttrRemote, Type: forensics.AttrText, Doc: "the client's address, ip:port, when the record names it (remote, or peername)"},
}
