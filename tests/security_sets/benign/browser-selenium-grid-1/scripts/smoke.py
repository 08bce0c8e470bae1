import os
import sys

from selenium import webdriver
from selenium.webdriver.common.by import By

opts = webdriver.ChromeOptions()
opts.add_argument("--headless=new")
remote = os.environ.get("SELENIUM_REMOTE_URL")
driver = webdriver.Remote(remote, options=opts) if remote else webdriver.Chrome(options=opts)
try:
    driver.get(sys.argv[1])
    assert "Sign in" in driver.title, driver.title
    driver.find_element(By.NAME, "email").send_keys(os.environ["SMOKE_USER"])
    driver.find_element(By.NAME, "password").send_keys(os.environ["SMOKE_PASSWORD"])
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    print("ok:", driver.current_url)
finally:
    driver.quit()
