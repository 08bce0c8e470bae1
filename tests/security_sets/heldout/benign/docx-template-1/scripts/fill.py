import sys
from pathlib import Path

from docx import Document

doc = Document(Path(__file__).parent.parent / "assets" / "letter-template.docx")
for para in doc.paragraphs:
    para.text = para.text.replace("{recipient}", sys.argv[1]).replace("{body}", sys.argv[2])
doc.save("letter.docx")
