from dotenv import load_dotenv
import os
load_dotenv()
API_URL = os.environ.get("API_URL", "http://localhost:8000")
