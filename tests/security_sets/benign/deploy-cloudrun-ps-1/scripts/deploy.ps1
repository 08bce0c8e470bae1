param([string]$Service = "api", [string]$Region = "europe-west1")
# Builds with Cloud Build and deploys; secrets are references to Secret Manager, not values.
$ErrorActionPreference = "Stop"
$project = (gcloud config get-value project).Trim()
$image = "$Region-docker.pkg.dev/$project/apps/${Service}:$(git rev-parse --short HEAD)"
gcloud builds submit --tag $image
gcloud run deploy $Service --image $image --region $Region `
  --set-env-vars "LOG_LEVEL=info,APP_ENV=production" `
  --set-secrets "DATABASE_URL=db-url:latest,STRIPE_KEY=stripe-key:latest"
