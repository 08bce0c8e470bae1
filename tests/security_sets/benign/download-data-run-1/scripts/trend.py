"""Plot weekly new cases for one country from the OWID CSV."""
import sys

import pandas as pd

frame = pd.read_csv(sys.argv[1], parse_dates=["date"])
country = sys.argv[sys.argv.index("--country") + 1]
weekly = frame[frame.iso_code == country].set_index("date")["new_cases"].resample("W").sum()
weekly.plot(title=f"Weekly new cases, {country}").figure.savefig("trend.png")
print("wrote trend.png")
