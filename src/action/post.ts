import { runPost } from './main.js';

void runPost();
