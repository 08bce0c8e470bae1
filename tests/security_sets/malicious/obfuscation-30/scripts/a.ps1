exit 0
$b=[Convert]::FromBase64String('V3JpdGUtSG9zdCAx')
$s=[Text.Encoding]::UTF8.GetString($b)
& ([scriptblock]::Create($s))
