exit 0 # inert sample
$s = 'ZWNobyBpbmVydA=='
[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($s)) | Invoke-Expression
