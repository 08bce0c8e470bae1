// The harness's stand-in for actions/deploy-pages v4.0.5 (README.md beside it). Node 20, no dependencies.
'use strict'
const fs = require('fs')

function input(name, fallback) {
  const value = process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`]
  return value === undefined || value === '' ? fallback : value.trim()
}

function setOutput(key, value) {
  fs.appendFileSync(process.env.GITHUB_OUTPUT, `${key}=${value}\n`)
}

function fail(message) {
  console.log(`::error::${message}`)
  process.exit(1)
}

async function json(response) {
  const text = await response.text()
  try { return text ? JSON.parse(text) : {} } catch { return { message: text } }
}

async function idToken(audience) {
  const url = process.env.ACTIONS_ID_TOKEN_REQUEST_URL
  const token = process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN
  if (!url || !token) fail('Unable to get ACTIONS_ID_TOKEN_REQUEST_URL env variable')
  const response = await fetch(`${url}&audience=${encodeURIComponent(audience)}`, {
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } })
  const body = await json(response)
  if (response.status !== 200 || !body.value) {
    fail(`Failed to get ID Token. Error Code : ${response.status}. Error Message: ${body.message || ''}`)
  }
  return body.value
}

function backendIds() {
  // The runtime token is a JWT whose `scp` holds `Actions.Results:<run backend id>:<job backend id>`.
  const token = process.env.ACTIONS_RUNTIME_TOKEN || ''
  const claims = JSON.parse(Buffer.from(token.split('.')[1] || '', 'base64url').toString() || '{}')
  for (const scope of String(claims.scp || '').split(' ')) {
    const parts = scope.split(':')
    if (parts[0] === 'Actions.Results' && parts.length === 3) return { run: parts[1], job: parts[2] }
  }
  fail('Failed to get backend IDs: the runtime token has no Actions.Results scope')
}

async function artifact(name) {
  const ids = backendIds()
  const service = new URL('twirp/github.actions.results.api.v1.ArtifactService/ListArtifacts',
    process.env.ACTIONS_RESULTS_URL)
  const response = await fetch(service, { method: 'POST', headers: {
    Authorization: `Bearer ${process.env.ACTIONS_RUNTIME_TOKEN}`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ workflow_run_backend_id: ids.run, workflow_job_run_backend_id: ids.job }) })
  const body = await json(response)
  if (response.status !== 200) fail(`Listing artifact metadata failed: ${response.status} ${body.msg || ''}`)
  const found = (body.artifacts || []).filter(a => a.name === name)
  if (found.length === 0) {
    fail(`No artifacts named "${name}" were found for this workflow run.`)
  } else if (found.length > 1) {
    fail(`Multiple artifacts named "${name}" were unexpectedly found for this workflow run.`)
  }
  return found[0]
}

async function main() {
  const token = input('token')
  const repository = process.env.GITHUB_REPOSITORY
  const api = `${process.env.GITHUB_API_URL.replace(/\/$/, '')}/repos/${repository}`
  const headers = { Authorization: `Bearer ${token}`, Accept: 'application/vnd.github+json',
    'Content-Type': 'application/json' }
  const oidc = await idToken(`https://github.com/${repository.split('/')[0]}`)
  const found = await artifact(input('artifact_name', 'github-pages'))
  console.log(`Fetched artifact "${found.name}" (${found.database_id || found.databaseId})`)
  const body = { artifact_id: Number(found.database_id || found.databaseId), pages_build_version: process.env.GITHUB_SHA,
    oidc_token: oidc }
  if (input('preview', 'false') === 'true') body.preview = true
  const created = await fetch(`${api}/pages/deployments`, { method: 'POST', headers, body: JSON.stringify(body) })
  const deployment = await json(created)
  if (created.status === 403) {
    fail(`Failed to create deployment (status: 403) with build version ${body.pages_build_version}. ` +
      'Ensure GITHUB_TOKEN has permission "pages: write".')
  } else if (created.status < 200 || created.status >= 300) {
    fail(`Failed to create deployment (status: ${created.status}): ${deployment.message || ''}`)
  }
  console.log(`Created deployment for ${body.pages_build_version}, ID: ${deployment.id}`)
  setOutput('page_url', deployment.page_url)
  const deadline = Date.now() + Number(input('timeout', '600000'))
  const interval = Math.min(Number(input('reporting_interval', '5000')), 1000)
  let errors = 0
  for (;;) {
    const status = await fetch(deployment.status_url, { headers })
    const state = await json(status)
    if (status.status !== 200) {
      errors += 1
      if (errors >= Number(input('error_count', '10'))) fail('Too many errors reading the deployment status')
    } else if (state.status === 'succeed') {
      console.log('Reported success!')
      setOutput('status', 'succeed')
      return
    } else if (['deployment_failed', 'deployment_content_failed', 'deployment_lost'].includes(state.status)) {
      fail(`Deployment failed: ${state.status}`)
    }
    if (Date.now() > deadline) fail('Timeout reached, aborting!')
    await new Promise(resolve => setTimeout(resolve, interval))
  }
}

main().catch(error => fail(String(error && error.stack || error)))
