module forensics

go 1.26
