"""Send an HTML report by email through an authenticated SMTP relay (STARTTLS)."""

import argparse
import os
import smtplib
from email.message import EmailMessage
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report", type=Path)
    parser.add_argument("--to", required=True)
    parser.add_argument("--subject", default="Weekly metrics")
    args = parser.parse_args()

    host = os.environ.get("SMTP_HOST", "smtp.gmail.com")
    user = os.environ["SMTP_USER"]
    password = os.environ["SMTP_PASSWORD"]

    message = EmailMessage()
    message["From"] = user
    message["To"] = args.to
    message["Subject"] = args.subject
    message.set_content("This report needs an HTML-capable mail client.")
    message.add_alternative(args.report.read_text(encoding="utf-8"), subtype="html")

    with smtplib.SMTP(host, 587, timeout=30) as smtp:
        smtp.starttls()
        smtp.login(user, password)
        smtp.send_message(message)
    print(f"sent {args.report} to {args.to}")


if __name__ == "__main__":
    main()
