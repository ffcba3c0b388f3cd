/** What PUT /v1/notifications/slack accepts, as Ajv checks it; the URL's rules beyond its shape are slack/url.ts. */
export const slackRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['webhook_url'],
  properties: {
    webhook_url: { type: 'string', description: "The channel's incoming webhook URL from Slack: https, port 443, on a host the deployment allows (hooks.slack.com)." },
  },
} as const;
