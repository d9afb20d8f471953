// Runs the Amplify AppSync simulator as a peer for the real-time end-to-end tests, in a process of its
// own (a `start` it cannot handle ends in an unhandled rejection that would kill its host). Usage:
// `node serve.cjs PORT`; prints `ready PORT` once it listens on 127.0.0.1:PORT, and exits on SIGTERM.
// One API: API key by default, iam, user pool and OIDC as additional modes; `addPost` publishes to
// `onAddPost` through a NONE data source.
"use strict";
const http = require("node:http");
const { AmplifyAppSyncSimulator } = require("@aws-amplify/amplify-appsync-simulator");

// The simulator listens on every interface and has no option for that: bind it to the loopback.
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (port, ...rest) {
  return typeof port === "number"
    ? listen.call(this, port, "127.0.0.1", ...rest)
    : listen.call(this, port, ...rest);
};
process.on(
  "unhandledRejection",
  (reason) => console.error("simulator: unhandled rejection:", String(reason)),
);

const ALL = "@aws_api_key @aws_iam @aws_cognito_user_pools @aws_oidc";
const schema = `
type Post ${ALL} { id: ID! title: String }
type Query { post(id: ID!): Post ${ALL} }
type Mutation { addPost(id: ID!, title: String): Post ${ALL} }
type Subscription { onAddPost: Post @aws_subscribe(mutations: ["addPost"]) ${ALL} }
`;

async function main() {
  const port = Number(process.argv[2]);
  const simulator = new AmplifyAppSyncSimulator({ port });
  simulator.init({
    appSync: {
      name: "realtime-e2e",
      apiKey: "da2-simulator-key",
      defaultAuthenticationType: { authenticationType: "API_KEY" },
      additionalAuthenticationProviders: [
        { authenticationType: "AWS_IAM" },
        { authenticationType: "AMAZON_COGNITO_USER_POOLS", cognitoUserPoolConfig: {} },
        {
          authenticationType: "OPENID_CONNECT",
          openIDConnectConfig: { Issuer: "https://issuer.example.com" },
        },
      ],
    },
    schema: { content: schema },
    dataSources: [{ type: "NONE", name: "none" }],
    resolvers: [
      {
        kind: "UNIT",
        typeName: "Mutation",
        fieldName: "addPost",
        dataSourceName: "none",
        requestMappingTemplate: '{"version": "2017-02-28", "payload": $util.toJson($context.arguments)}',
        responseMappingTemplate: "$util.toJson($context.result)",
      },
    ],
    mappingTemplates: [],
    tables: [],
  });
  await simulator.start();
  console.log(`ready ${port}`);
  process.on("SIGTERM", () => simulator.stop().finally(() => process.exit(0)));
}

main().catch((error) => {
  console.error("simulator: failed to start:", error);
  process.exit(1);
});
